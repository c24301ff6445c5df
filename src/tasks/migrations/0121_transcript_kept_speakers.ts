import type { Migration } from '../../store/migration.js';

/**
 * Speakers that exist without sentences: a speaker whose last sentence was reassigned away
 * stays a speaker (the reassign can be undone), until it is merged into another.
 * JSON array of original speaker ids.
 */
export const transcriptKeptSpeakersMigration: Migration = {
  id: '0121_transcript_kept_speakers',
  async up(db) {
    await db.schema
      .alterTable('transcripts')
      .addColumn('kept_speakers', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
  },
};
