/**
 * Opens the database chosen by configuration: SQLite in PARLEY_DATA_DIR by default, or
 * PostgreSQL when DATABASE_URL is set. Both are driven through one Kysely query builder, so
 * every store operation is written once; the few dialect differences (row locks, upserts)
 * are decided by `db.dialect`. SQL lives only in the store layer (`src/store/` and each
 * feature's `store.ts`).
 *
 * Portable column conventions (see ARCHITECTURE.md): ids are UUID text; timestamps are ISO
 * 8601 UTC text with milliseconds (sortable as text); flags are integers 0/1; money is
 * integer milli-points (bigint) so sums are exact.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLiteDatabase from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.js';
import type { Schema } from './schema.js';

export type { Dialect } from './dialect.js';

/**
 * Where a store operation runs: the database's own connection pool, or an open transaction
 * (`db.transaction().execute((tx) => ...)`), so one feature's write can join another's
 * transaction (a task's outcome and its webhook outbox rows commit together).
 */
export type Executor = Kysely<Schema>;

export interface Database {
  readonly db: Kysely<Schema>;
  readonly dialect: Dialect;
  /**
   * The SQLite handle under Kysely, for the rare read that must cost microseconds on every
   * request (the auth cache's epoch check); undefined on PostgreSQL.
   */
  readonly sqlite?: SQLiteDatabase.Database;
  /**
   * PostgreSQL: runs a precompiled hot read as a named statement, which each pooled connection
   * parses and plans once and then only executes (Kysely's driver sends every query unnamed, so
   * the server parses and plans it on every call). For the one read of every authenticated
   * request (the key lookup); undefined on SQLite, whose statements are cached below.
   */
  readonly prepared?: <R>(name: string, query: CompiledQuery) => Promise<R[]>;
  close(): Promise<void>;
}

// bigint (int8) columns hold milli-points and counters well inside 2^53: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export interface OpenOptions {
  /** postgres:// URL, or undefined for SQLite. */
  databaseUrl?: string;
  /** SQLite file path (":memory:" for tests). */
  sqlitePath: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  pgSchema?: string;
  poolSize?: number;
}

export function openDatabase(options: OpenOptions): Database {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // Each connection uses the configured schema (tests run in their own schema).
      options: options.pgSchema ? `-c search_path=${options.pgSchema}` : undefined,
    });
    const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
    const prepared = async <R>(name: string, query: CompiledQuery): Promise<R[]> =>
      (await pool.query({ name, text: query.sql, values: [...query.parameters] })).rows as R[];
    return { db, dialect: 'postgres', prepared, close: () => db.destroy() };
  }
  if (options.sqlitePath !== ':memory:') mkdirSync(dirname(options.sqlitePath), { recursive: true });
  const sqlite = new SQLiteDatabase(options.sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', sqlite, close: () => db.destroy() };
}

/**
 * Kysely prepares every query anew; on SQLite preparing costs several times more than
 * running a small indexed query, so prepared statements are kept by SQL text (bounded). A
 * statement is used by one query at a time: Kysely runs SQLite queries one after another
 * on its single connection. SQLite re-prepares a cached statement itself after a schema change.
 */
/**
 * The SQLite connection and its prepared statements, for the few reads that go around Kysely
 * on SQLite only (the key and billing read caches: src/keys/auth-cache.ts,
 * src/billing/read-cache.ts). The store owns the driver; features name these types.
 */
export type SqliteConnection = SQLiteDatabase.Database;
export type SqliteStatement = SQLiteDatabase.Statement;

function withStatementCache(sqlite: SQLiteDatabase.Database, max = 500) {
  const cache = new Map<string, SQLiteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        if (cache.size >= max) cache.clear();
        stmt = sqlite.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}
