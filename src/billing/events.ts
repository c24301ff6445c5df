/**
 * Credit crossings. Billing applies the spec's rule "at most once per 24 hours per account,
 * re-evaluated after credit increases" (state in billing_accounts) and, in the transaction
 * that disarms a crossing, hands it to its `CreditNotices` port: the webhooks feature writes
 * `credit.low` / `credit.exhausted` to its durable outbox there, so a notification exists
 * exactly when the crossing commits, whichever process charged and whether or not a worker
 * runs. After the commit the crossing is also published on the bus (at most once, for
 * in-process observers; no notification depends on it). Topics and types: src/bus/topics.ts.
 */
import type { CreditExhaustedEvent, CreditLowEvent } from '../bus/topics.js';
import type { Executor } from '../store/database.js';

export { CREDIT_EXHAUSTED, CREDIT_LOW } from '../bus/topics.js';
export type { CreditExhaustedEvent, CreditLowEvent };

/** What a credit crossing causes, written in the transaction that records it (`within`). */
export interface CreditNotices {
  low(event: CreditLowEvent, within: Executor): Promise<void>;
  exhausted(event: CreditExhaustedEvent, within: Executor): Promise<void>;
}

/** The spec's webhook formatting: points as strings with one decimal. */
export function oneDecimal(points: number): string {
  return (Math.floor(points * 10) / 10).toFixed(1);
}
