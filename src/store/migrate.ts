/**
 * Versioned migrations, applied at start (and by the admin CLI) in id order, each in its own
 * transaction, recorded in `parley_migrations`. On PostgreSQL an advisory lock makes
 * concurrent starts of several processes safe. Migrations are append-only: never edit one
 * that has shipped; add a new one. The list comes from above the store (`src/schema.ts`
 * assembles every feature's migrations), so the store knows no feature.
 */
import { sql } from 'kysely';
import type { Database } from './database.js';
import type { Migration } from './migration.js';

export type { Migration, MigrationTables } from './migration.js';

const LOCK_ID = 7_202_611; // arbitrary constant for pg_advisory_lock

export async function migrate(database: Database, migrations: Migration[]): Promise<string[]> {
  const { db, dialect } = database;
  const ids = migrations.map((m) => m.id);
  if (new Set(ids).size !== ids.length) throw new Error('duplicate migration id');
  const sorted = [...migrations].sort((a, b) => a.id.localeCompare(b.id));
  return db.connection().execute(async (conn) => {
    if (dialect === 'postgres') await sql`select pg_advisory_lock(${LOCK_ID})`.execute(conn);
    try {
      await conn.schema
        .createTable('parley_migrations')
        .ifNotExists()
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('applied_at', 'text', (c) => c.notNull())
        .execute();
      const done = new Set((await conn.selectFrom('parley_migrations').select('id').execute()).map((r) => r.id));
      const applied: string[] = [];
      for (const m of sorted) {
        if (done.has(m.id)) continue;
        await conn.transaction().execute(async (trx) => {
          await m.up(trx, dialect);
          await trx.insertInto('parley_migrations').values({ id: m.id, applied_at: new Date().toISOString() }).execute();
        });
        applied.push(m.id);
      }
      return applied;
    } finally {
      if (dialect === 'postgres') await sql`select pg_advisory_unlock(${LOCK_ID})`.execute(conn);
    }
  });
}
