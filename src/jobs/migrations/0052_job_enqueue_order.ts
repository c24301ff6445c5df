import type { Migration } from '../../store/migration.js';

/**
 * The order jobs were enqueued in (src/jobs/store-queue.ts): jobs enqueued in the same
 * millisecond have the same run_at, and a tie in ORDER BY is no order at all (PostgreSQL's sort
 * gave the later of two uploads first). Claims break the tie by this number, so a group's jobs
 * run first in, first out. Rows from before it have none (NULL) and keep the old tie.
 */
export const jobEnqueueOrderMigration: Migration = {
  id: '0052_job_enqueue_order',
  async up(db) {
    await db.schema.alterTable('jobs').addColumn('enqueue_seq', 'bigint').execute();
  },
};
