/**
 * Builds the webhook service from the app's backends. Nothing reaches it over the bus: task
 * outcomes are written to the outbox by the task service in the outcome's transaction
 * (task-outcomes.ts), credit crossings by billing in the crossing's transaction
 * (credit-notices.ts).
 */
import type { Logger } from 'pino';
import type { JobQueue } from '../jobs/types.js';
import type { KeyService } from '../keys/service.js';
import type { Database } from '../store/database.js';
import { type WebhookOptions, WebhookService, type WebhookTargets } from './service.js';
import type { WebhookSender } from './signed-sender.js';
import { WebhookStore } from './store.js';

/** The keys feature as the webhook service needs it. */
export function keyTargets(keys: KeyService, now: () => Date): WebhookTargets {
  return {
    target: (keyId) => keys.webhookTarget(keyId),
    keysWithWebhook: (accountId, within) => keys.store.keysWithWebhook(accountId, now(), within),
  };
}

export interface WebhooksModule {
  webhooks: WebhookService;
}

export function createWebhooksModule(d: {
  database: Database;
  jobs: JobQueue;
  keys: KeyService;
  sender: WebhookSender;
  options: WebhookOptions;
  logger: Logger;
  now: () => Date;
}): WebhooksModule {
  const webhooks = new WebhookService(
    new WebhookStore(d.database),
    d.jobs,
    keyTargets(d.keys, d.now),
    d.sender,
    d.options,
    d.logger,
    d.now,
  );
  return { webhooks };
}
