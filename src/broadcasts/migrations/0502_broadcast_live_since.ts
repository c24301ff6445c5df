import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/** When the broadcast went live: viewers' start_time counts from here, across host reconnects. */
export const broadcastLiveSinceMigration: Migration = {
  id: '0502_broadcast_live_since',
  async up(db) {
    await db.schema.alterTable('broadcasts').addColumn('live_since', types.timestamp).execute();
  },
};
