import { types } from '../../../store/columns.js';
import type { Migration } from '../../../store/migration.js';

/** Live recordings any realtime process can continue or finish (src/realtime/live/tables.ts). */
export const liveRecordingsMigration: Migration = {
  id: '0600_live_recordings',
  async up(db) {
    await db.schema
      .createTable('live_recordings')
      .addColumn('task_id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('usage_id', types.id, (c) => c.notNull())
      .addColumn('token_hash', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('instance_id', types.id)
      .addColumn('lease_until', types.timestamp, (c) => c.notNull())
      .addColumn('grace_until', types.timestamp)
      .addColumn('segments', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('snapshot', types.json, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('live_recordings_token').on('live_recordings').column('token_hash').execute();
    await db.schema.createIndex('live_recordings_state_lease').on('live_recordings').columns(['state', 'lease_until']).execute();
  },
};
