/** All migrations, one import line each (ids must be unique; order is by id). */
import type { Migration } from '../migrate.js';
import { jobsMigration } from './0050_jobs.js';
import { tasksMigration } from './0100_tasks.js';

export const MIGRATIONS: Migration[] = [jobsMigration, tasksMigration];
