import { sql } from 'kysely';
import type { Migration } from '../../store/migration.js';

/**
 * A counter that moves whenever a key or an account changes, whoever changes it (this
 * process, another process on the same SQLite file such as the admin CLI, a hand-written
 * SQL update): triggers bump it. A process caching key lookups compares it before trusting
 * its cache (src/keys/auth-cache.ts), so a disabled key still fails on the very next request.
 * SQLite only: on PostgreSQL lookups are not cached (see the auth cache's notes).
 */
export const authEpochMigration: Migration = {
  id: '0700_auth_epoch',
  async up(db, dialect) {
    if (dialect !== 'sqlite') return;
    await db.schema
      .createTable('auth_epoch')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('epoch', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('auth_epoch').values({ id: 1, epoch: 0 }).execute();
    for (const table of ['api_keys', 'accounts'])
      for (const event of ['UPDATE', 'DELETE'])
        await sql
          .raw(
            `CREATE TRIGGER ${table}_${event.toLowerCase()}_auth_epoch AFTER ${event} ON ${table} BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END`,
          )
          .execute(db);
  },
};
