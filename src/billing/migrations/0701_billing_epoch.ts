import { sql } from 'kysely';
import type { Migration } from '../../store/migration.js';

/**
 * A counter per account that moves whenever the account's plan, credit lots or charges
 * change, whoever changes them (this process, another process on the same SQLite file, the
 * admin CLI, a hand-written SQL update): triggers bump it. The billing read cache
 * (src/billing/read-cache.ts) compares it before trusting a cached plan, balance or minute
 * count, so a top-up, a spend or a plan change shows on the very next request.
 * SQLite only: on PostgreSQL those reads are not cached (see the read cache's notes).
 */
export const billingEpochMigration: Migration = {
  id: '0701_billing_epoch',
  async up(db, dialect) {
    if (dialect !== 'sqlite') return;
    await db.schema
      .createTable('billing_epoch')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('epoch', 'integer', (c) => c.notNull())
      .execute();
    const bump = (row: 'NEW' | 'OLD') =>
      `INSERT INTO billing_epoch (account_id, epoch) VALUES (${row}.account_id, 1) ON CONFLICT (account_id) DO UPDATE SET epoch = epoch + 1;`;
    for (const table of ['account_plans', 'credit_lots', 'billing_charges']) {
      const name = (event: string) => `${table}_${event.toLowerCase()}_billing_epoch`;
      await sql.raw(`CREATE TRIGGER ${name('INSERT')} AFTER INSERT ON ${table} BEGIN ${bump('NEW')} END`).execute(db);
      // An update could move a row to another account: both accounts' counters move.
      await sql.raw(`CREATE TRIGGER ${name('UPDATE')} AFTER UPDATE ON ${table} BEGIN ${bump('OLD')} ${bump('NEW')} END`).execute(db);
      await sql.raw(`CREATE TRIGGER ${name('DELETE')} AFTER DELETE ON ${table} BEGIN ${bump('OLD')} END`).execute(db);
    }
  },
};
