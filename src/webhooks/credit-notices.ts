/**
 * Credit crossings as webhooks: billing calls this port inside the transaction that records a
 * crossing (its once-per-24-h gate already applied), and `credit.low` / `credit.exhausted` go
 * to the durable outbox there, one row per active key with a webhook URL. Like task outcomes,
 * the notification exists exactly when the crossing commits: no bus subscriber, no worker has
 * to be alive at that moment, and a crash after the commit loses nothing.
 */
import type { CreditNotices } from '../billing/events.js';
import { eventData } from './events.js';
import type { WebhookService } from './service.js';

export function creditWebhooks(webhooks: WebhookService): CreditNotices {
  return {
    async low(e, within) {
      await webhooks.notifyAccount('credit.low', e.accountId, eventData.creditLow(e), `credit.low:${e.accountId}:${e.at}`, within);
    },
    async exhausted(e, within) {
      await webhooks.notifyAccount(
        'credit.exhausted',
        e.accountId,
        eventData.creditExhausted(e),
        `credit.exhausted:${e.accountId}:${e.at}`,
        within,
      );
    },
  };
}
