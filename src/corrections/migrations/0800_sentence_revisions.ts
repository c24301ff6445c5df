import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * Sentence corrections (src/corrections): every revision of a corrected sentence, the text as
 * recognized (revision 0, written with the first correction) included, so a correction can be
 * undone with the translations it replaced and its history can be read. The current text stays
 * in `sentences` (exports, history, search read it there). The primary key makes two
 * corrections of the same revision collide: exactly one is stored.
 */
export const sentenceRevisionsMigration: Migration = {
  id: '0800_sentence_revisions',
  async up(db) {
    await db.schema
      .createTable('sentence_revisions')
      .addColumn('task_id', types.id, (c) => c.notNull().references('tasks.task_id').onDelete('cascade'))
      .addColumn('sid', 'integer', (c) => c.notNull())
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('based_on', 'integer')
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('translations', types.json)
      .addColumn('translation_errors', types.json)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('sentence_revisions_pk', ['task_id', 'sid', 'revision'])
      .execute();
  },
};
