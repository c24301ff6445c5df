import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/** The host's side of a broadcast: who streams it now, and since when it waits for its host. */
export const broadcastHostsMigration: Migration = {
  id: '0501_broadcast_hosts',
  async up(db) {
    await db.schema.alterTable('broadcasts').addColumn('host_key_id', types.id).execute();
    await db.schema.alterTable('broadcasts').addColumn('frozen_at', types.timestamp).execute();
    await db.schema.createIndex('broadcasts_frozen').on('broadcasts').columns(['status', 'frozen_at']).execute();
  },
};
