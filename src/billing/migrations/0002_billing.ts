import { sql } from 'kysely';
import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/** Billing (credit lots, usage, charges, draws, crossing state) and plan assignment. */
export const billingMigration: Migration = {
  id: '0002_billing',
  async up(db) {
    await db.schema
      .createTable('billing_accounts')
      .addColumn('account_id', types.id, (c) => c.primaryKey())
      .addColumn('low_armed', types.flag, (c) => c.notNull().defaultTo(1))
      .addColumn('low_notified_at', types.timestamp)
      .addColumn('exhausted_armed', types.flag, (c) => c.notNull().defaultTo(1))
      .addColumn('exhausted_notified_at', types.timestamp)
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('credit_lots')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('pool', 'text', (c) => c.notNull())
      .addColumn('key_id', types.id)
      .addColumn('granted_milli', types.millipoints, (c) => c.notNull())
      .addColumn('remaining_milli', types.millipoints, (c) => c.notNull())
      .addColumn('expires_at', types.timestamp)
      .addColumn('granted_at', types.timestamp, (c) => c.notNull())
      .addCheckConstraint('credit_lots_remaining_nonneg', sql`remaining_milli >= 0`)
      .execute();
    await db.schema.createIndex('credit_lots_account').on('credit_lots').columns(['account_id', 'pool', 'key_id']).execute();

    await db.schema
      .createTable('usage_records')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('task_id', types.id)
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('points_milli', types.millipoints, (c) => c.notNull().defaultTo(0))
      .addColumn('minutes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('in_progress', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('refunded', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('refund_reason', 'text')
      .addColumn('occurred_at', types.timestamp, (c) => c.notNull())
      .addColumn('ended_at', types.timestamp)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    // The usage page: one account, newest first (index order = sort order).
    await db.schema.createIndex('usage_records_list').on('usage_records').columns(['account_id', 'occurred_at', 'id']).execute();
    await db.schema.createIndex('usage_records_live').on('usage_records').columns(['account_id', 'in_progress']).execute();

    await db.schema
      .createTable('billing_charges')
      .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
      .addColumn('usage_id', types.id, (c) => c.notNull().references('usage_records.id').onDelete('cascade'))
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('milli', types.millipoints, (c) => c.notNull())
      .addColumn('minutes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('refunded', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('billing_charges_usage').on('billing_charges').column('usage_id').execute();
    // Monthly spend per key and used minutes per account are range sums over created_at.
    await db.schema.createIndex('billing_charges_key_time').on('billing_charges').columns(['key_id', 'created_at']).execute();
    await db.schema.createIndex('billing_charges_account_time').on('billing_charges').columns(['account_id', 'created_at']).execute();

    await db.schema
      .createTable('billing_draws')
      .addColumn('charge_key', 'text', (c) => c.notNull().references('billing_charges.idempotency_key').onDelete('cascade'))
      .addColumn('lot_id', types.id, (c) => c.notNull().references('credit_lots.id'))
      .addColumn('milli', types.millipoints, (c) => c.notNull())
      .addPrimaryKeyConstraint('billing_draws_pk', ['charge_key', 'lot_id'])
      .execute();

    await db.schema
      .createTable('account_plans')
      .addColumn('account_id', types.id, (c) => c.primaryKey())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('plan_name', 'text')
      .addColumn('expires_at', types.timestamp)
      .addColumn('granted_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
  },
};
