import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * Fair claiming (src/jobs/store-queue.ts): a job's fairness group (the account, for imports)
 * and when it was last claimed, so the group served least recently goes first.
 */
export const jobFairnessMigration: Migration = {
  id: '0051_job_fairness',
  async up(db) {
    await db.schema.alterTable('jobs').addColumn('fair_key', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('claimed_at', types.timestamp).execute();
    await db.schema.createIndex('jobs_fair_served').on('jobs').columns(['name', 'fair_key', 'claimed_at']).execute();
  },
};
