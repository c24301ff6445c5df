/**
 * Internal credit-crossing events published on the bus after a charge. The webhooks feature
 * subscribes and delivers `credit.low` / `credit.exhausted` to every active key of the
 * account that has a webhook URL. Billing already applies the spec's rule "at most once per
 * 24 hours per account, re-evaluated after credit increases" (state in billing_accounts), so
 * each message published here is meant to be delivered. Topics and types: src/bus/topics.ts.
 */
export type { CreditExhaustedEvent, CreditLowEvent } from '../bus/topics.js';
export { CREDIT_EXHAUSTED, CREDIT_LOW } from '../bus/topics.js';

/** The spec's webhook formatting: points as strings with one decimal. */
export function oneDecimal(points: number): string {
  return (Math.floor(points * 10) / 10).toFixed(1);
}
