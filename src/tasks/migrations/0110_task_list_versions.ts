/**
 * A per-account version of the task list, bumped by triggers in the same transaction as every
 * insert, update and delete of `tasks`. Each process caches the rendered list of an account
 * (src/tasks/list-cache.ts) together with the version it was rendered at; a request compares
 * that with the version in the database, so a write made by any process, through any code
 * path, invalidates every process's copy at its commit.
 *
 * PostgreSQL uses statement-level triggers over transition tables: one bump per account per
 * statement, taken after the statement has locked its task rows. Every transaction that
 * writes tasks does so in a single statement, so the version row is always the last lock
 * taken and two writers cannot deadlock on it (a row-level trigger would take it between the
 * rows of a batch update). SQLite has only row-level triggers and one writer at a time.
 */
import { sql } from 'kysely';
import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const taskListVersionsMigration: Migration = {
  id: '0110_task_list_versions',
  async up(db, dialect) {
    await db.schema
      .createTable('task_list_versions')
      .addColumn('account_id', types.id, (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    // Accounts that already have tasks start at 1 (no row reads as 0).
    await sql`insert into task_list_versions (account_id, version) select distinct account_id, 1 from tasks`.execute(db);

    if (dialect === 'postgres') {
      // Rows grouped and sorted by account: a statement touching several accounts locks their
      // version rows in one order. "version" is qualified: in DO UPDATE it would be ambiguous.
      const bump = (from: string) => `
        insert into task_list_versions (account_id, version)
          select account_id, 1 from (${from}) changed group by account_id order by account_id
        on conflict (account_id) do update set version = task_list_versions.version + 1;`;
      await sql
        .raw(`create function task_list_bump_new() returns trigger language plpgsql as $$
          begin ${bump('select account_id from new_rows')} return null; end $$`)
        .execute(db);
      await sql
        .raw(`create function task_list_bump_old() returns trigger language plpgsql as $$
          begin ${bump('select account_id from old_rows')} return null; end $$`)
        .execute(db);
      await sql
        .raw(`create function task_list_bump_both() returns trigger language plpgsql as $$
          begin ${bump('select account_id from old_rows union all select account_id from new_rows')} return null; end $$`)
        .execute(db);
      await sql
        .raw(`create trigger tasks_list_insert after insert on tasks referencing new table as new_rows
          for each statement execute function task_list_bump_new()`)
        .execute(db);
      await sql
        .raw(`create trigger tasks_list_update after update on tasks referencing old table as old_rows new table as new_rows
          for each statement execute function task_list_bump_both()`)
        .execute(db);
      await sql
        .raw(`create trigger tasks_list_delete after delete on tasks referencing old table as old_rows
          for each statement execute function task_list_bump_old()`)
        .execute(db);
      return;
    }

    // The WHERE clause is required: SQLite cannot parse an upsert after a bare SELECT.
    const bump = (row: 'new' | 'old', when = 'true') =>
      `insert into task_list_versions (account_id, version) select ${row}.account_id, 1 where ${when}
        on conflict (account_id) do update set version = version + 1;`;
    await sql.raw(`create trigger tasks_list_insert after insert on tasks begin ${bump('new')} end`).execute(db);
    await sql
      .raw(`create trigger tasks_list_update after update on tasks begin
        ${bump('new')} ${bump('old', 'old.account_id <> new.account_id')} end`)
      .execute(db);
    await sql.raw(`create trigger tasks_list_delete after delete on tasks begin ${bump('old')} end`).execute(db);
  },
};
