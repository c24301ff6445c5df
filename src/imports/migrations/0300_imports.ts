import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const importsMigration: Migration = {
  id: '0300_imports',
  async up(db) {
    await db.schema
      .createTable('imports')
      .addColumn('import_id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('task_id', types.id, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('stage', 'text')
      .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('message', 'text')
      .addColumn('original_filename', 'text', (c) => c.notNull())
      .addColumn('file_size_bytes', 'bigint', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'bigint', (c) => c.notNull())
      .addColumn('source_key', 'text', (c) => c.notNull())
      .addColumn('options', types.json, (c) => c.notNull())
      .addColumn('callback_url', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .addColumn('started_at', types.timestamp)
      .addColumn('finished_at', types.timestamp)
      .execute();
    // The list (newest first per account) and the task -> import lookup of webhook routing.
    await db.schema.createIndex('imports_account_created').on('imports').columns(['account_id', 'created_at', 'import_id']).execute();
    await db.schema.createIndex('imports_task').on('imports').column('task_id').execute();
    await db.schema.createIndex('imports_status').on('imports').columns(['status', 'created_at']).execute();
  },
};
