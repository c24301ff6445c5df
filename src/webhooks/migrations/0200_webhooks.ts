import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const webhooksMigration: Migration = {
  id: '0200_webhooks',
  async up(db) {
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('callback_url', 'text')
      .addColumn('body', types.json, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('dedupe_key', 'text', (c) => c.unique())
      .addColumn('after_id', types.id)
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .addColumn('updated_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_deliveries_key').on('webhook_deliveries').columns(['key_id', 'created_at']).execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', types.id, (c) => c.primaryKey())
      .addColumn('delivery_id', types.id, (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('started_at', types.timestamp, (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempt']).execute();
  },
};
