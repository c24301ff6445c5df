/**
 * What a migration is. The store applies migrations (migrate.ts) without knowing any: each
 * feature keeps its own in `src/<feature>/migrations/`, and `src/schema.ts` lists them all.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.js';

export interface MigrationTables {
  parley_migrations: { id: string; applied_at: string };
}

export interface Migration {
  /**
   * Sortable id, "0001_accounts". Ranges: 0001-0099 platform, 0100-0199 tasks, 0200-0299
   * webhooks, 0300 imports, 0400-0499 floating subtitles, 0500-0599 broadcasts, later features after.
   */
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}
