import { sql } from 'kysely';
import { CHANGE_CHANNEL } from '../../store/change-feed.js';
import type { Migration } from '../../store/migration.js';

/**
 * PostgreSQL: every change to an account's plan row, credit lots or charges, whoever makes it,
 * tells every listening process "<schema> billing <account id>" once its transaction commits
 * (src/store/change-feed.ts; PostgreSQL sends a transaction's identical notices once), so the
 * billing read cache (src/billing/read-cache.ts) may answer from memory. A truncate tells
 * "<schema> billing": every account. The billing epoch (0702) stays for a process whose feed is
 * not listening.
 */
export const billingNoticesPostgresMigration: Migration = {
  id: '0704_billing_notices_postgres',
  async up(db, dialect) {
    if (dialect !== 'postgres') return;
    const notice = (row: 'NEW' | 'OLD') => `PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA || ' billing ' || ${row}.account_id);`;
    await sql
      .raw(
        `CREATE FUNCTION parley_billing_notice() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP = 'TRUNCATE' THEN
             PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA || ' billing');
             RETURN NULL;
           END IF;
           IF TG_OP <> 'INSERT' THEN ${notice('OLD')} END IF;
           IF TG_OP <> 'DELETE' THEN ${notice('NEW')} END IF;
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    for (const table of ['account_plans', 'credit_lots', 'billing_charges']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_billing_notice AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE PROCEDURE parley_billing_notice()`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER ${table}_billing_truncate_notice AFTER TRUNCATE ON ${table}
           FOR EACH STATEMENT EXECUTE PROCEDURE parley_billing_notice()`,
        )
        .execute(db);
    }
  },
};
