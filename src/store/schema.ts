/**
 * The database schema as Kysely table types. The store declares only its own table here;
 * each feature declares its tables next to its store (`src/<feature>/tables.ts`), and
 * `src/schema.ts`, above the store, adds them all to this interface (declaration merging), so
 * the store and its `Database` type name no feature.
 */
import type { MigrationTables } from './migration.js';

export interface Schema extends MigrationTables {}
