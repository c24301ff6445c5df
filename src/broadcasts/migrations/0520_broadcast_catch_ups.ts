import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * Catch-up summaries for late joiners (src/broadcasts/catch-up/): the host's switch on each
 * broadcast (on unless turned off), and each broadcast's latest summary in every language its
 * viewers read, written by the hosting node and read by every node's viewer streams (one row a
 * broadcast, replaced by revision so a host that lost the broadcast cannot overwrite a newer one).
 */
export const broadcastCatchUpsMigration: Migration = {
  id: '0520_broadcast_catch_ups',
  async up(db) {
    await db.schema
      .alterTable('broadcasts')
      .addColumn('catch_up', types.flag, (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .createTable('broadcast_catch_ups')
      .addColumn('broadcast_id', types.id, (c) => c.primaryKey())
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('source_language', 'text', (c) => c.notNull())
      .addColumn('texts', types.json, (c) => c.notNull())
      .addColumn('covers_from_ms', 'integer', (c) => c.notNull())
      .addColumn('covers_to_ms', 'integer', (c) => c.notNull())
      .addColumn('engine', 'text', (c) => c.notNull())
      .addColumn('generated_at', types.timestamp, (c) => c.notNull())
      .execute();
  },
};
