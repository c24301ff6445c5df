/**
 * WebSocket tickets (spec "Ticket and tokens"): 32 characters, 60 seconds, single use. The
 * ticket records the key that asked for it (a live recording started with it notifies that
 * key). Issuing refuses what the WebSocket start would refuse anyway: 402
 * `plan_daily_limit_reached` when a plan hard limit blocks, 402 `auth_insufficient_credit`
 * when the credit is gone and no unlimited authorization is active.
 */
import { randomBytes } from 'node:crypto';
import type { BillingService } from '../billing/service.js';
import type { LimitsCalculator } from '../plans/limits.js';
import type { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { type ConsumeResult, TicketStore } from './store.js';

export const TICKET_LENGTH = 32;
export const TICKET_TTL_SECONDS = 60;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SWEEP_EVERY_MS = 60_000;

/** 32 characters from [A-Za-z0-9], uniformly (rejection sampling avoids modulo bias). */
export function newTicket(): string {
  let out = '';
  while (out.length < TICKET_LENGTH) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < TICKET_LENGTH) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export class TicketService {
  readonly store: TicketStore;
  private lastSweep = 0;

  constructor(
    private readonly deps: {
      store: TicketStore;
      billing: BillingService;
      plans: PlanService;
      limits: LimitsCalculator;
      now: () => Date;
    },
  ) {
    this.store = deps.store;
  }

  async issue(principal: Principal): Promise<{ ticket: string; expires_in: number }> {
    const now = this.deps.now();
    const standing = await this.deps.billing.standing(principal);
    await this.deps.limits.assertCanStart(principal, standing.plan, standing.policy, { transport: 'rest' }, now);
    await this.deps.billing.assertCanCharge(principal, standing);
    const ticket = newTicket();
    await this.store.issue(ticket, { ...principal, expiresAt: new Date(now.getTime() + TICKET_TTL_SECONDS * 1000), now });
    if (now.getTime() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now.getTime();
      await this.store.sweep(now);
    }
    return { ticket, expires_in: TICKET_TTL_SECONDS };
  }

  /** Atomic single use; the WebSocket connect maps a refusal to its `ticket_*` error. */
  consumeTicket(ticket: string): Promise<ConsumeResult> {
    return this.store.consume(ticket, this.deps.now());
  }
}

export function createTicketService(
  deps: Omit<ConstructorParameters<typeof TicketService>[0], 'store'> & { database: import('../store/database.js').Database },
): TicketService {
  return new TicketService({ ...deps, store: new TicketStore(deps.database) });
}
