/**
 * Internal credit-crossing events published on the bus after a charge. The webhooks feature
 * subscribes and delivers `credit.low` / `credit.exhausted` to every active key of the
 * account that has a webhook URL. Billing already applies the spec's rule "at most once per
 * 24 hours per account, re-evaluated after credit increases" (state in billing_accounts), so
 * each message published here is meant to be delivered.
 */
export const CREDIT_LOW = 'credit.low';
export const CREDIT_EXHAUSTED = 'credit.exhausted';

export interface CreditLowEvent {
  accountId: string;
  /** Account balance in points after the charge. */
  balance: number;
  threshold: number;
  at: string;
}

export interface CreditExhaustedEvent {
  accountId: string;
  balance: number;
  /** `charge` (balance reached zero) or `refused` (a recording could not start or continue). */
  cause: 'charge' | 'refused';
  at: string;
}

/** The spec's webhook formatting: points as strings with one decimal. */
export function oneDecimal(points: number): string {
  return (Math.floor(points * 10) / 10).toFixed(1);
}
