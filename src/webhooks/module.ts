/**
 * Builds the webhook service from the app's backends and connects it to the credit crossings
 * billing publishes on the bus (billing already applies the "once per 24 h per account,
 * re-armed when credit rises" gate, so each message is delivered). Task outcomes do not ride
 * on the bus: the task service writes them to the outbox in the outcome's transaction
 * (task-outcomes.ts).
 */
import type { Logger } from 'pino';
import { CREDIT_EXHAUSTED, CREDIT_LOW } from '../billing/events.js';
import type { EventBus } from '../bus/types.js';
import type { JobQueue } from '../jobs/types.js';
import type { KeyService } from '../keys/service.js';
import type { Database } from '../store/database.js';
import { eventData } from './events.js';
import { type WebhookOptions, WebhookService, type WebhookTargets } from './service.js';
import type { WebhookSender } from './signed-sender.js';
import { WebhookStore } from './store.js';

/** The keys feature as the webhook service needs it. */
export function keyTargets(keys: KeyService, now: () => Date): WebhookTargets {
  return {
    target: (keyId) => keys.webhookTarget(keyId),
    keysWithWebhook: (accountId) => keys.store.keysWithWebhook(accountId, now()),
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

/**
 * Subscribes the service to credit events (call in processes with the worker role, so a
 * notification is queued once per event). Resolves, once both subscriptions are live, to the
 * unsubscribe function.
 */
export async function subscribeWebhookEvents(bus: EventBus, webhooks: WebhookService, logger: Logger): Promise<() => void> {
  const safe = (what: string, p: Promise<unknown>) => p.catch((err: unknown) => logger.error({ err, what }, 'webhook not queued'));
  const offs = await Promise.all([
    bus.subscribe(CREDIT_LOW, (e) => {
      void safe(CREDIT_LOW, webhooks.notifyAccount('credit.low', e.accountId, eventData.creditLow(e), `credit.low:${e.accountId}:${e.at}`));
    }),
    bus.subscribe(CREDIT_EXHAUSTED, (e) => {
      void safe(
        CREDIT_EXHAUSTED,
        webhooks.notifyAccount('credit.exhausted', e.accountId, eventData.creditExhausted(e), `credit.exhausted:${e.accountId}:${e.at}`),
      );
    }),
  ]);
  return () => {
    for (const off of offs) off();
  };
}
