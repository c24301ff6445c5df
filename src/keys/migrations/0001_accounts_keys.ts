import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const accountsKeysMigration: Migration = {
  id: '0001_accounts_keys',
  async up(db) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('blocked', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('user_disabled', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull().references('accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('expires_at', types.timestamp)
      .addColumn('monthly_spend_limit_milli', types.millipoints)
      .addColumn('max_concurrent_sessions', 'integer')
      .addColumn('allow_account_pool', types.flag, (c) => c.notNull().defaultTo(1))
      .addColumn('ip_rules', types.json)
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret', 'text', (c) => c.notNull())
      .addColumn('disabled', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('deleted_at', types.timestamp)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();
  },
};
