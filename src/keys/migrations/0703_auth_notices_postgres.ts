import { sql } from 'kysely';
import { CHANGE_CHANNEL } from '../../store/change-feed.js';
import type { Migration } from '../../store/migration.js';

/**
 * PostgreSQL: every statement that changes api_keys or accounts, whoever runs it, tells every
 * listening process "<schema> auth" once its transaction commits (src/store/change-feed.ts), so
 * a process may keep key lookups in memory and still refuse a disabled key on the next request.
 * SQLite's processes read a counter instead (0700).
 */
export const authNoticesPostgresMigration: Migration = {
  id: '0703_auth_notices_postgres',
  async up(db, dialect) {
    if (dialect !== 'postgres') return;
    await sql
      .raw(
        `CREATE FUNCTION parley_auth_notice() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA || ' auth');
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    for (const table of ['api_keys', 'accounts']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_auth_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
           FOR EACH STATEMENT EXECUTE PROCEDURE parley_auth_notice()`,
        )
        .execute(db);
    }
  },
};
