import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const broadcastsMigration: Migration = {
  id: '0500_broadcasts',
  async up(db) {
    await db.schema
      .createTable('broadcasts')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('token_claim', 'text')
      .addColumn('name', 'text')
      .addColumn('access_type', 'text', (c) => c.notNull())
      .addColumn('pass_code_hash', 'text')
      .addColumn('access_version', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('transcription_languages', types.json, (c) => c.notNull())
      .addColumn('translation_languages', types.json, (c) => c.notNull())
      .addColumn('speaker_diarization', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('max_viewers', 'integer', (c) => c.notNull())
      .addColumn('tts_config', types.json, (c) => c.notNull())
      .addColumn('summary_template', 'text')
      .addColumn('summary_language', 'text', (c) => c.notNull())
      .addColumn('callback_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('phase', 'text')
      .addColumn('task_id', types.id)
      .addColumn('peak_viewers', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total_viewers', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .addColumn('started_at', types.timestamp)
      .addColumn('ended_at', types.timestamp)
      .addColumn('revoked_at', types.timestamp)
      .execute();
    // Unique among usable broadcasts only (NULL claims of ended/revoked ones never collide).
    await db.schema.createIndex('broadcasts_token_claim').on('broadcasts').column('token_claim').unique().execute();
    await db.schema.createIndex('broadcasts_token').on('broadcasts').columns(['token', 'created_at']).execute();
    await db.schema.createIndex('broadcasts_account_created').on('broadcasts').columns(['account_id', 'created_at', 'id']).execute();
    await db.schema
      .createTable('broadcast_viewer_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('broadcast_id', types.id, (c) => c.notNull())
      .addColumn('access_version', 'integer', (c) => c.notNull())
      .addColumn('expires_at', types.timestamp, (c) => c.notNull())
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('broadcast_viewer_tokens_expiry').on('broadcast_viewer_tokens').column('expires_at').execute();
  },
};
