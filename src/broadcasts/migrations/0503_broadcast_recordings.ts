import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/** Every recording (task) of a broadcast: its outcome's webhooks follow the broadcast's callback_url. */
export const broadcastRecordingsMigration: Migration = {
  id: '0503_broadcast_recordings',
  async up(db) {
    await db.schema
      .createTable('broadcast_recordings')
      .addColumn('task_id', types.id, (c) => c.primaryKey())
      .addColumn('broadcast_id', types.id, (c) => c.notNull())
      .execute();
  },
};
