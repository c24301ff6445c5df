import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * The languages a broadcast's viewers can listen to, published by the node that hosts it
 * (the one that synthesizes, src/broadcasts/viewer-speech.ts) when its host starts or
 * returns: viewer nodes answer from it rather than from their own synthesizers.
 */
export const broadcastTtsLanguagesMigration: Migration = {
  id: '0511_broadcast_tts_languages',
  async up(db) {
    await db.schema.alterTable('broadcasts').addColumn('tts_languages', types.json).execute();
  },
};
