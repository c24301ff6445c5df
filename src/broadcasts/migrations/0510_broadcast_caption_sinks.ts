import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * Caption sinks of a broadcast (YouTube Live and Zoom caption URLs, src/broadcasts/sinks/):
 * their settings and the delivery status the hosting node writes (sequence numbers, last
 * success, last error), so the status reads the same from any node and a host that returns
 * on another node continues each sink's sequence.
 */
export const broadcastCaptionSinksMigration: Migration = {
  id: '0510_broadcast_caption_sinks',
  async up(db) {
    await db.schema
      .createTable('broadcast_caption_sinks')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('broadcast_id', types.id, (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('language', 'text')
      .addColumn('region', 'text')
      .addColumn('line_length', 'integer')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('seq_used', 'integer', (c) => c.notNull())
      .addColumn('last_seq', 'integer')
      .addColumn('captions_sent', 'integer', (c) => c.notNull())
      .addColumn('captions_dropped', 'integer', (c) => c.notNull())
      .addColumn('last_success_at', types.timestamp)
      .addColumn('last_error', 'text')
      .addColumn('last_error_at', types.timestamp)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('broadcast_caption_sinks_broadcast').on('broadcast_caption_sinks').column('broadcast_id').execute();
  },
};
