/** Builds the keys feature (store, service, authenticator) from the app's backends. */
import type { ChangeVersions } from '../store/change-feed.js';
import type { Database } from '../store/database.js';
import { KeyAuthenticator } from './authenticator.js';
import { KeyService, type WebhookUrlVerifier } from './service.js';
import { KeyStore } from './store.js';

export interface KeysModule {
  keys: KeyService;
  authenticator: KeyAuthenticator;
}

export function createKeysModule(d: {
  database: Database;
  now: () => Date;
  verifyWebhookUrl?: WebhookUrlVerifier;
  /** PARLEY_KEY_CACHE: keep key lookups in memory, checked against the auth epoch (SQLite) or the change feed. */
  cacheLookups?: boolean;
  /** PostgreSQL: changes heard from every process (src/store/change-feed.ts). */
  changes?: ChangeVersions;
}): KeysModule {
  const store = new KeyStore(d.database, { cacheLookups: d.cacheLookups, changes: d.changes });
  return { keys: new KeyService(store, d.now, d.verifyWebhookUrl), authenticator: new KeyAuthenticator(store, d.now) };
}
