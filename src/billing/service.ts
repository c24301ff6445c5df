/**
 * Billing: credit lots, usage rows and charges, refunds, the monthly spend limit per key,
 * and the credit-crossing events. Other features call this service (never the store):
 * - one-off operations (summary, retranslation, import): `chargeOneOff`;
 * - live recordings and broadcasts: `startUsage`, then `charge` at the start of each minute
 *   with an idempotency key per minute, then `endUsage` (or `refund(id, 'no_audio')`);
 * - chargeable endpoints: `assertCanCharge` first (402 auth_insufficient_credit).
 * Under an unlimited authorization charges record 0 points (minutes still count for limits),
 * except broadcasts, which always consume points (`ALWAYS_PAID`).
 */
import type { Logger } from 'pino';
import type { MessageOf } from '../bus/topics.js';
import type { EventBus } from '../bus/types.js';
import type { ActivePlan, PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { fromMilli, toMilli } from '../store/columns.js';
import type { Database, Executor } from '../store/database.js';
import { CREDIT_EXHAUSTED, CREDIT_LOW, type CreditExhaustedEvent, type CreditLowEvent, type CreditNotices } from './events.js';
import { type KeyPolicy, type KeyPolicySource, OPEN_KEY_POLICY, openKeyPolicySource } from './key-policy.js';
import { Prices, type PriceTable } from './prices.js';
import type { BillingReadCache } from './read-cache.js';
import { BillingStore, type ChargeOutcome, type CreditLot, type Pool, type RefundReason, type UsageRecord } from './store.js';

/** Usage types charged in points even under an unlimited authorization (spec: broadcasts always consume points). */
export const ALWAYS_PAID: ReadonlySet<string> = new Set(['broadcast']);

export interface GrantCreditInput {
  accountId: string;
  points: number;
  pool: Pool;
  /** Required for pool `key`: the key whose dedicated allotment this is. */
  keyId?: string;
  /** ISO 8601, or null/undefined for never. */
  expiresAt?: string | null;
}

export interface ChargeInput {
  /** Unique per charge within the usage row, e.g. `m0`, `m1` per minute: retries are charged once. */
  idempotencyKey: string;
  points: number;
  /** Billable minutes this charge covers (plan limits count them). */
  minutes?: number;
}

export interface OneOffInput {
  type: string;
  taskId?: string | null;
  points: number;
  minutes?: number;
  /** Globally unique for this operation (e.g. `summary:<task id>:<revision>`). */
  idempotencyKey: string;
}

export interface ChargeResult {
  usage: UsageRecord;
  /** Points taken by this call (0 for a duplicate or under an unlimited authorization). */
  charged: number;
  duplicate: boolean;
}

export interface Standing {
  plan: ActivePlan;
  policy: KeyPolicy;
  /** Points the key can spend now. */
  available: number;
}

export interface BillingServiceOptions {
  database: Database;
  plans: PlanService;
  bus: EventBus;
  prices: PriceTable;
  lowThreshold: number;
  keyPolicies?: KeyPolicySource;
  now?: () => Date;
  logger?: Logger;
  /** Durable notifications of credit crossings (the webhooks feature's outbox), written in the crossing's transaction. */
  notices?: CreditNotices;
  /** Told of every charge that took points (metrics: credit charged by usage type). */
  onCharged?: (usageType: string, points: number) => void;
  /** The plan, balances and minute counts kept in memory (SQLite only, src/billing/read-cache.ts); none: read every time. */
  readCache?: BillingReadCache;
}

export class BillingService {
  readonly store: BillingStore;
  readonly prices: Prices;
  private readonly plans: PlanService;
  private readonly bus: EventBus;
  private readonly keyPolicies: KeyPolicySource;
  private readonly lowThresholdMilli: number;
  private readonly now: () => Date;
  private readonly logger: Logger | undefined;
  private readonly notices: CreditNotices | undefined;
  private readonly onCharged: ((usageType: string, points: number) => void) | undefined;

  constructor(options: BillingServiceOptions) {
    this.notices = options.notices;
    this.store = new BillingStore(options.database, options.readCache);
    this.prices = new Prices(options.prices);
    this.plans = options.plans;
    this.bus = options.bus;
    this.keyPolicies = options.keyPolicies ?? openKeyPolicySource;
    this.lowThresholdMilli = toMilli(options.lowThreshold);
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger;
    this.onCharged = options.onCharged;
  }

  async policy(keyId: string): Promise<KeyPolicy> {
    return (await this.keyPolicies.keyPolicy(keyId)) ?? OPEN_KEY_POLICY;
  }

  /**
   * The key's settings for a request: an Authenticator that already read them may attach
   * them to the principal (`policy`), which saves a query on hot paths.
   */
  async policyOf(principal: Principal & { policy?: KeyPolicy }): Promise<KeyPolicy> {
    return principal.policy ?? this.policy(principal.keyId);
  }

  async grantCredit(input: GrantCreditInput): Promise<void> {
    await this.grantLot(input);
  }

  async grantLot(input: GrantCreditInput): Promise<CreditLot> {
    if (!Number.isFinite(input.points) || input.points <= 0) {
      throw new AppError('validation_failed', { message: 'points must be a positive number.', details: { field: 'points' } });
    }
    if (input.pool === 'key' && !input.keyId) {
      throw new AppError('validation_failed', { message: 'A key allotment needs the key id.', details: { field: 'key_id' } });
    }
    let expiresAt: string | null = null;
    if (input.expiresAt) {
      const t = Date.parse(input.expiresAt);
      if (Number.isNaN(t))
        throw new AppError('validation_failed', { message: 'expires_at must be ISO 8601.', details: { field: 'expires_at' } });
      expiresAt = new Date(t).toISOString();
    }
    return this.store.grantLot({
      accountId: input.accountId,
      pool: input.pool,
      keyId: input.keyId ?? null,
      milli: toMilli(input.points),
      expiresAt,
      now: this.now(),
      lowThresholdMilli: this.lowThresholdMilli,
    });
  }

  /** Points the key spent this calendar month (UTC); null when the key has no monthly limit. */
  async monthlySpent(keyId: string): Promise<number | null> {
    const policy = await this.policy(keyId);
    if (policy.monthlySpendLimit === null) return null;
    return fromMilli(await this.store.monthlySpentMilli(keyId, this.now()));
  }

  /** Points the key can spend now (its allotment plus account lots when allowed). */
  async available(principal: Principal, policy?: KeyPolicy): Promise<number> {
    const p = policy ?? (await this.policyOf(principal));
    return fromMilli(await this.store.availableMilli(principal.accountId, principal.keyId, p.allowAccountPool, this.now()));
  }

  /**
   * Plan in force, key settings and the key's available credit, in one statement (plus the key's
   * settings). `epoch`: the account's billing epoch read by this request's key lookup
   * (PostgreSQL), which lets the cached read answer; only a caller serving that very request
   * passes it (see read-cache.ts).
   */
  async standing(principal: Principal, epoch?: number): Promise<Standing> {
    const now = this.now();
    // The Authenticator usually attached the key's settings: then this is one statement.
    const attached = (principal as Principal & { policy?: KeyPolicy }).policy;
    const [snap, policy] = attached
      ? [await this.store.planAndBalances(principal.accountId, principal.keyId, now, epoch), attached]
      : await Promise.all([this.store.planAndBalances(principal.accountId, principal.keyId, now, epoch), this.policy(principal.keyId)]);
    return {
      plan: this.plans.fromRow(snap.plan, now),
      policy,
      available: fromMilli(snap.keyMilli + (policy.allowAccountPool ? snap.accountMilli : 0)),
    };
  }

  /**
   * For chargeable endpoints: 402 auth_insufficient_credit when the balance is zero or less
   * and no unlimited authorization is active. Never called on /me/*.
   */
  async assertCanCharge(principal: Principal, standing?: Standing): Promise<void> {
    const s = standing ?? (await this.standing(principal));
    if (s.plan.mode !== 'credit') return;
    if (s.available <= 0) throw new AppError('auth_insufficient_credit', { details: { available_credit: 0 } });
  }

  /**
   * Before a start that will be charged `points` (e.g. one minute of a recording): throws
   * auth_quota_exceeded with details.budget_scope (`key_monthly_limit`, `key_allotment` or
   * `account_credit`) and details.remaining_budget when a budget cannot cover it. Nothing is
   * charged; an unlimited authorization passes, except for `ALWAYS_PAID` usage types (broadcasts).
   */
  async assertCanAfford(principal: Principal, points: number, standing?: Standing, usageType?: string): Promise<void> {
    const s = standing ?? (await this.standing(principal));
    if (s.plan.mode !== 'credit' && !(usageType && ALWAYS_PAID.has(usageType))) return;
    const limit = s.policy.monthlySpendLimit;
    if (limit !== null) {
      const spent = fromMilli(await this.store.monthlySpentMilli(principal.keyId, this.now()));
      if (spent + points > limit) {
        throw new AppError('auth_quota_exceeded', {
          details: {
            budget_scope: 'key_monthly_limit',
            remaining_budget: Math.max(0, fromMilli(toMilli(limit - spent))),
            required: points,
          },
        });
      }
    }
    if (s.available < points) {
      throw new AppError('auth_quota_exceeded', {
        details: {
          budget_scope: s.policy.allowAccountPool ? 'account_credit' : 'key_allotment',
          remaining_budget: s.available,
          required: points,
        },
      });
    }
  }

  /** Opens the usage row of a recording or broadcast (0 points, in progress, occurred_at = start). */
  async startUsage(principal: Principal, input: { type: string; taskId?: string | null; id?: string }): Promise<UsageRecord> {
    return this.store.createUsage({ ...input, accountId: principal.accountId, keyId: principal.keyId, inProgress: true }, this.now());
  }

  /** Charges a usage row; throws auth_quota_exceeded (details.budget_scope, remaining_budget) when a budget is short. */
  async charge(usageId: string, input: ChargeInput): Promise<ChargeResult> {
    const usage = await this.store.getUsage(usageId);
    if (!usage) throw new AppError('not_found', { details: { usage_id: usageId } });
    const ctx = await this.context(usage.accountId, usage.keyId);
    // Broadcasts always consume points, whatever the authorization (spec "Authentication" 9).
    if (ALWAYS_PAID.has(usage.type)) ctx.unlimited = false;
    const outcome = await this.store.charge(
      usageId,
      { idempotencyKey: input.idempotencyKey, milli: toMilli(input.points), minutes: input.minutes },
      ctx,
    );
    return this.after(outcome);
  }

  /** A one-off charge (summary, retranslation, import...): the usage row exists only if the charge succeeds. */
  async chargeOneOff(principal: Principal, input: OneOffInput): Promise<ChargeResult> {
    const ctx = await this.context(principal.accountId, principal.keyId);
    const outcome = await this.store.createAndCharge(
      { accountId: principal.accountId, keyId: principal.keyId, type: input.type, taskId: input.taskId ?? null },
      { idempotencyKey: input.idempotencyKey, milli: toMilli(input.points), minutes: input.minutes },
      ctx,
    );
    return this.after(outcome);
  }

  async endUsage(usageId: string): Promise<UsageRecord | null> {
    return this.store.endUsage(usageId, this.now());
  }

  /** Full refund to the lots the points came from; a second refund changes nothing. */
  async refund(usageId: string, reason: RefundReason): Promise<{ usage: UsageRecord; refunded: number }> {
    const r = await this.store.refund(usageId, reason, this.now(), this.lowThresholdMilli);
    if (!r) throw new AppError('not_found', { message: 'Usage record not found.', details: { usage_id: usageId } });
    return { usage: r.usage, refunded: fromMilli(r.refundedMilli) };
  }

  /** A recording could not start or continue for lack of credit: credit.exhausted (same 24 h gate). */
  async notifyExhausted(accountId: string): Promise<void> {
    const at = this.now().toISOString();
    let event: CreditExhaustedEvent | null = null;
    const claimed = await this.store.claimExhaustedNotice(accountId, this.now(), async (balanceMilli, within) => {
      event = { accountId, balance: fromMilli(balanceMilli), cause: 'refused', at };
      await this.notices?.exhausted(event, within);
    });
    if (claimed && event) await this.publish(CREDIT_EXHAUSTED, event);
  }

  private async context(accountId: string, keyId: string) {
    const [plan, policy] = await Promise.all([this.plans.activePlan(accountId), this.policy(keyId)]);
    const now = this.now();
    return {
      policy,
      unlimited: plan.mode !== 'credit',
      now,
      lowThresholdMilli: this.lowThresholdMilli,
      onCrossings: async (crossings: ('low' | 'exhausted')[], balanceMilli: number, within: Executor) => {
        const balance = fromMilli(balanceMilli);
        const at = now.toISOString();
        if (crossings.includes('low'))
          await this.notices?.low({ accountId, balance, threshold: fromMilli(this.lowThresholdMilli), at }, within);
        if (crossings.includes('exhausted')) await this.notices?.exhausted({ accountId, balance, cause: 'charge', at }, within);
      },
    };
  }

  private async after(outcome: ChargeOutcome): Promise<ChargeResult> {
    const accountId = outcome.usage.accountId;
    const balance = fromMilli(outcome.accountBalanceMilli);
    const at = this.now().toISOString();
    if (outcome.crossings.includes('low')) {
      await this.publish(CREDIT_LOW, { accountId, balance, threshold: fromMilli(this.lowThresholdMilli), at } satisfies CreditLowEvent);
    }
    if (outcome.crossings.includes('exhausted')) {
      await this.publish(CREDIT_EXHAUSTED, { accountId, balance, cause: 'charge', at } satisfies CreditExhaustedEvent);
    }
    const charged = fromMilli(outcome.chargedMilli);
    if (!outcome.duplicate && charged > 0) this.onCharged?.(outcome.usage.type, charged);
    return { usage: outcome.usage, charged, duplicate: outcome.duplicate };
  }

  private async publish<T extends typeof CREDIT_LOW | typeof CREDIT_EXHAUSTED>(topic: T, message: MessageOf<T>): Promise<void> {
    try {
      await this.bus.publish(topic, message);
    } catch (err) {
      // The charge is committed; a lost notification must not undo it.
      this.logger?.error({ err, topic }, 'credit event not published');
    }
  }
}
