import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const tasksMigration: Migration = {
  id: '0100_tasks',
  async up(db) {
    await db.schema
      .createTable('tasks')
      .addColumn('task_id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('name_source', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('type_source', 'text', (c) => c.notNull())
      .addColumn('recognition_mode', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('transcription_languages', types.json)
      .addColumn('translation_languages', types.json)
      .addColumn('processing_status', 'text', (c) => c.notNull())
      .addColumn('is_pinned', types.flag, (c) => c.notNull().defaultTo(0))
      .addColumn('is_unread', types.flag, (c) => c.notNull().defaultTo(1))
      .addColumn('summary_mode', 'text')
      .addColumn('summary_template', 'text')
      .addColumn('summary_language', 'text')
      .addColumn('audio_key', 'text')
      .addColumn('source_key', 'text')
      .addColumn('import_id', types.id)
      .addColumn('failure_source', 'text')
      .addColumn('failure_code', 'text')
      .addColumn('failure_message', 'text')
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    // The list: one account, one status, pinned first then newest (index order = sort order).
    await db.schema
      .createIndex('tasks_list')
      .on('tasks')
      .columns(['account_id', 'processing_status', 'is_pinned', 'created_at', 'task_id'])
      .execute();
    await db.schema.createIndex('tasks_list_all').on('tasks').columns(['account_id', 'is_pinned', 'created_at', 'task_id']).execute();
    await db.schema.createIndex('tasks_import').on('tasks').column('import_id').execute();

    await db.schema
      .createTable('transcripts')
      .addColumn('task_id', types.id, (c) => c.primaryKey().references('tasks.task_id').onDelete('cascade'))
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('speaker_labels', types.json, (c) => c.notNull().defaultTo('{}'))
      .addColumn('summary', 'text')
      .addColumn('summary_language', 'text')
      .addColumn('summary_mode', 'text')
      .addColumn('summary_template', 'text')
      .addColumn('summary_plain_text', types.flag)
      .addColumn('summary_prompt_snapshot', 'text')
      .addColumn('summary_fallback_level', 'integer')
      .addColumn('summary_dropped_segments', types.json)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sentences')
      .addColumn('task_id', types.id, (c) => c.notNull().references('tasks.task_id').onDelete('cascade'))
      .addColumn('sid', 'integer', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('start_ms', 'bigint', (c) => c.notNull())
      .addColumn('end_ms', 'bigint', (c) => c.notNull())
      .addColumn('speaker_id', 'text')
      .addColumn('language', 'text')
      .addColumn('translations', types.json)
      .addColumn('translation_errors', types.json)
      .addPrimaryKeyConstraint('sentences_pk', ['task_id', 'sid'])
      .execute();
    await db.schema.createIndex('sentences_speaker').on('sentences').columns(['task_id', 'speaker_id']).execute();
  },
};
