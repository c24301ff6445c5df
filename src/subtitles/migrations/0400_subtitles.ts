import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/** Floating-subtitle feed tokens and shares (src/subtitles/tables.ts). */
export const subtitlesMigration: Migration = {
  id: '0400_subtitles',
  async up(db) {
    await db.schema
      .createTable('subtitle_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('task_id', types.id, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('share_id', types.id)
      .addColumn('expires_at', types.timestamp, (c) => c.notNull())
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('subtitle_tokens_expiry').on('subtitle_tokens').column('expires_at').execute();
    await db.schema
      .createTable('subtitle_shares')
      .addColumn('task_id', types.id, (c) => c.primaryKey())
      .addColumn('share_id', types.id, (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('expires_at', types.timestamp, (c) => c.notNull())
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
  },
};
