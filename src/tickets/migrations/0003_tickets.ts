import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

export const ticketsMigration: Migration = {
  id: '0003_tickets',
  async up(db) {
    await db.schema
      .createTable('tickets')
      .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', types.id, (c) => c.notNull())
      .addColumn('key_id', types.id, (c) => c.notNull())
      .addColumn('expires_at', types.timestamp, (c) => c.notNull())
      .addColumn('created_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('tickets_expiry').on('tickets').column('expires_at').execute();
    await db.schema
      .createTable('ticket_tombstones')
      .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('forget_at', types.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ticket_tombstones_forget').on('ticket_tombstones').column('forget_at').execute();
  },
};
