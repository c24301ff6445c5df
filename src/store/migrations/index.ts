/** All migrations, one import line each (ids must be unique; order is by id). */
import type { Migration } from '../migrate.js';

export const MIGRATIONS: Migration[] = [];
