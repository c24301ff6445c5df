/** Builds the keys feature (store, service, authenticator) from the app's backends. */
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
  /** PARLEY_KEY_CACHE: keep key lookups in memory, checked against the auth epoch (SQLite). */
  cacheLookups?: boolean;
}): KeysModule {
  const store = new KeyStore(d.database, { cacheLookups: d.cacheLookups });
  return { keys: new KeyService(store, d.now, d.verifyWebhookUrl), authenticator: new KeyAuthenticator(store, d.now) };
}
