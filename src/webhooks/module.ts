/**
 * Builds the webhook service from the app's backends and connects it to the events other
 * features publish on the bus: credit crossings (billing already applies the "once per 24 h
 * per account, re-armed when credit rises" gate, so each message is delivered) and task
 * outcomes (`recording.completed` / `recording.failed`).
 */
import type { Logger } from 'pino';
import { CREDIT_EXHAUSTED, CREDIT_LOW } from '../billing/events.js';
import type { EventBus } from '../bus/types.js';
import type { JobQueue } from '../jobs/types.js';
import type { KeyService } from '../keys/service.js';
import type { Database } from '../store/database.js';
import { TASK_COMPLETED_TOPIC, TASK_FAILED_TOPIC } from '../tasks/service.js';
import { eventData } from './events.js';
import { type WebhookOptions, WebhookService, type WebhookTargets } from './service.js';
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
  options: WebhookOptions;
  logger: Logger;
  now: () => Date;
}): WebhooksModule {
  const webhooks = new WebhookService(new WebhookStore(d.database), d.jobs, keyTargets(d.keys, d.now), d.options, d.logger, d.now);
  return { webhooks };
}

/**
 * Subscribes the service to bus events (call in processes with the worker role, so a
 * notification is queued once per event). Resolves, once every subscription is live, to the unsubscribe function.
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
    bus.subscribe(TASK_COMPLETED_TOPIC, (e) => {
      void safe(
        TASK_COMPLETED_TOPIC,
        (async () => {
          const route = (await webhooks.taskRouting?.(e.task_id)) ?? null;
          if (route?.announcedElsewhere) return;
          await webhooks.notify('recording.completed', {
            accountId: e.account_id,
            keyId: e.key_id,
            callbackUrl: route?.callbackUrl ?? null,
            data: eventData.recordingCompleted(e),
            // Every worker process hears the event; one row per outcome is queued.
            dedupeKey: e.at ? `recording.completed:${e.task_id}:${e.at}` : undefined,
          });
        })(),
      );
    }),
    bus.subscribe(TASK_FAILED_TOPIC, (e) => {
      void safe(
        TASK_FAILED_TOPIC,
        (async () => {
          const route = (await webhooks.taskRouting?.(e.task_id)) ?? null;
          if (route?.announcedElsewhere) return;
          await webhooks.notify('recording.failed', {
            accountId: e.account_id,
            keyId: e.key_id,
            callbackUrl: route?.callbackUrl ?? null,
            data: eventData.recordingFailed(e),
            dedupeKey: e.at ? `recording.failed:${e.task_id}:${e.at}` : undefined,
          });
        })(),
      );
    }),
  ]);
  return () => {
    for (const off of offs) off();
  };
}
