import { types } from '../../store/columns.js';
import type { Migration } from '../../store/migration.js';

/**
 * The host's lease on a running broadcast: the hosting process renews it while its host is
 * connected; a lease left to lapse (the process died) lets a new host take the broadcast and
 * lets any process freeze, then end, it (src/broadcasts/host-lease.ts). `host_session` names
 * the host session holding the lease, so a superseded one cannot renew it.
 */
export const broadcastHostLeaseMigration: Migration = {
  id: '0504_broadcast_host_lease',
  async up(db) {
    await db.schema.alterTable('broadcasts').addColumn('host_lease_until', types.timestamp).execute();
    await db.schema.alterTable('broadcasts').addColumn('host_session', types.id).execute();
  },
};
