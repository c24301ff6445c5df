import { sql } from 'kysely';
import type { Migration } from '../../store/migration.js';

/**
 * The per-account billing epoch of migration 0701, on PostgreSQL (issue 30): a counter per
 * account that a trigger moves in the same transaction as every insert, update or delete of the
 * account's plan row, credit lots or charges, whoever makes it (any api process, the admin CLI,
 * a hand-written SQL update). The key lookup of each request reads it in the same statement as
 * the key (src/keys/store.ts), and the billing read cache (src/billing/read-cache.ts) answers
 * only for the epoch that statement saw, so a change committed before a request started is seen
 * by that request, at no extra round trip. SQLite has its own triggers (0701).
 */
export const billingEpochPostgresMigration: Migration = {
  id: '0702_billing_epoch_postgres',
  async up(db, dialect) {
    if (dialect !== 'postgres') return;
    await db.schema
      .createTable('billing_epoch')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('epoch', 'bigint', (c) => c.notNull())
      .execute();
    // The function keeps the search_path it was created with (the schema of these tables), so a
    // writer whose own search_path differs (psql naming the schema) still bumps the right table.
    const bump = (row: 'NEW' | 'OLD') =>
      `INSERT INTO billing_epoch (account_id, epoch) VALUES (${row}.account_id, 1)
         ON CONFLICT (account_id) DO UPDATE SET epoch = billing_epoch.epoch + 1;`;
    await sql
      .raw(
        `CREATE FUNCTION parley_billing_epoch_bump() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
         BEGIN
           IF TG_OP <> 'INSERT' THEN ${bump('OLD')} END IF;
           -- An update that moves a row to another account moves both accounts' counters.
           IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.account_id IS DISTINCT FROM OLD.account_id) THEN ${bump('NEW')} END IF;
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    for (const table of ['account_plans', 'credit_lots', 'billing_charges']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_billing_epoch AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE PROCEDURE parley_billing_epoch_bump()`,
        )
        .execute(db);
    }
  },
};
