import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const jobsMigration: Migration = {
  id: '0050_jobs',
  async up(db) {
    await db.schema
      .createTable('jobs')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('payload', types.json, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('run_at', types.timestamp, (c) => c.notNull())
      .addColumn('locked_until', types.timestamp)
      .addColumn('locked_by', 'text')
      .addColumn('last_error', 'text')
      .addColumn('dedupe_key', 'text')
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'name', 'run_at']).execute();
    await db.schema.createIndex('jobs_dedupe').on('jobs').columns(['dedupe_key', 'status']).execute();
  },
};
