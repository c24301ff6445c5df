/**
 * The key's own view of its account (spec "Account"): plan, credit lots, usage. Read-only,
 * never 402 (works at zero balance). Each answer takes a handful of queries, none per row.
 */
import type { KeyPolicy } from '../billing/key-policy.js';
import type { BillingService } from '../billing/service.js';
import type { CreditLot, UsageRecord } from '../billing/store.js';
import { MINUTE_FEATURES, ONEOFF_FEATURES, type PlanDefinition } from '../plans/catalogue.js';
import type { LimitsCalculator, LimitsView } from '../plans/limits.js';
import type { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { fromMilli } from '../store/columns.js';

export type PlanView =
  | { mode: 'credit'; plan: null; available_credit: number }
  | { mode: 'unlimited'; plan: null; features: { all: true }; expired_at: string | null }
  | {
      mode: 'unlimited';
      plan: { name: string; expired_at: string | null };
      features: FeatureView[];
      oneoff_features: FeatureView[];
      limits: LimitsView;
    };

export interface FeatureView {
  slug: string;
  name: string;
  included: boolean;
}

export interface LotView {
  pool: 'key' | 'account';
  remaining_points: number;
  expires_at: string | null;
  granted_at: string;
}

export interface UsageView {
  task_id: string | null;
  type: string;
  points: number;
  in_progress: boolean;
  refunded: boolean;
  refund_reason: string | null;
  occurred_at: string | null;
  ended_at: string | null;
}

export class AccountService {
  constructor(private readonly deps: { billing: BillingService; plans: PlanService; limits: LimitsCalculator; now: () => Date }) {}

  /**
   * `principal` is this request's own (GET /me/plan): on PostgreSQL its key lookup also read the
   * account's billing epoch, which lets the cached billing reads answer with no further round trip.
   */
  async plan(principal: Principal & { billingEpoch?: number }): Promise<PlanView> {
    const now = this.deps.now();
    const epoch = principal.billingEpoch;
    const { plan, policy, available } = await this.deps.billing.standing(principal, epoch);
    if (plan.mode === 'credit') return { mode: 'credit', plan: null, available_credit: available };
    if (plan.mode === 'unlimited') return { mode: 'unlimited', plan: null, features: { all: true }, expired_at: plan.expiresAt };
    const report = await this.deps.limits.evaluate(principal.accountId, plan, now, policy, epoch);
    // The same report (LimitsCalculator hands out the very same object while the counts hold),
    // plan and expiry: the same frozen view, which the route answers as a shared body (okShared).
    const known = this.planBoundViews.get(report.view);
    if (known && known.plan === plan.plan && known.expiresAt === plan.expiresAt) return known.view;
    const lists = featureLists(plan.plan);
    const view: PlanView = Object.freeze({
      mode: 'unlimited',
      plan: Object.freeze({ name: plan.plan.name, expired_at: plan.expiresAt }),
      features: lists.features,
      oneoff_features: lists.oneoff,
      limits: report.view,
    });
    this.planBoundViews.set(report.view, { plan: plan.plan, expiresAt: plan.expiresAt, view });
    return view;
  }

  private readonly planBoundViews = new WeakMap<LimitsView, { plan: PlanDefinition; expiresAt: string | null; view: PlanView }>();

  /**
   * Lots with credit left and unexpired, soonest expiry first, never-expiring last. The key
   * sees its own allotment and, when allow_account_pool is on, the account's lots.
   * Plan-bound unlimited keys get []; unlimited keys without plan restrictions see the
   * account's lots whatever allow_account_pool says (they are not drawn while unlimited).
   */
  async creditLots(principal: Principal): Promise<LotView[]> {
    const now = this.deps.now();
    const [plan, policy] = await Promise.all([
      this.deps.plans.activePlan(principal.accountId, now),
      this.deps.billing.policy(principal.keyId),
    ]);
    if (plan.mode === 'unlimited-plan') return [];
    const seeAccount = plan.mode === 'unlimited' || policy.allowAccountPool;
    const lots = await this.deps.billing.store.lotsFor(principal.accountId, principal.keyId, seeAccount, now);
    return lots.sort(byExpiry).map(lotView);
  }

  async usage(principal: Principal, page: number, perPage: number) {
    const { rows, total } = await this.deps.billing.store.listUsage(principal.accountId, page, perPage);
    return {
      data: rows.map(usageView),
      meta: { current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total },
    };
  }
}

/**
 * A plan's feature lists as /me/plan shows them. They depend on the plan definition only, so
 * they are built once per definition (the catalogue is fixed for the life of the process)
 * instead of on every request; frozen, since every answer shares them.
 */
/** Shared by every answer: frozen (typed mutable only to fit the response type). */
type SharedFeatureLists = { features: FeatureView[]; oneoff: FeatureView[] };

const featureListsByPlan = new WeakMap<PlanDefinition, SharedFeatureLists>();

function featureLists(plan: PlanDefinition): SharedFeatureLists {
  let lists = featureListsByPlan.get(plan);
  if (!lists) {
    const features = plan.features as Record<string, boolean>;
    const oneoff = plan.oneoff_features as Record<string, boolean>;
    lists = {
      features: Object.freeze(
        Object.entries(MINUTE_FEATURES).map(([slug, name]) =>
          Object.freeze({ slug, name, included: slug !== 'broadcast' && features[slug] === true }),
        ),
      ) as FeatureView[],
      oneoff: Object.freeze(
        Object.entries(ONEOFF_FEATURES).map(([slug, name]) => Object.freeze({ slug, name, included: oneoff[slug] === true })),
      ) as FeatureView[],
    };
    featureListsByPlan.set(plan, lists);
  }
  return lists;
}

/** Display order: soonest expiry first, never-expiring last (pools mixed). */
function byExpiry(a: CreditLot, b: CreditLot): number {
  if (a.expiresAt !== b.expiresAt) {
    if (a.expiresAt === null) return 1;
    if (b.expiresAt === null) return -1;
    return a.expiresAt < b.expiresAt ? -1 : 1;
  }
  if (a.pool !== b.pool) return a.pool === 'key' ? -1 : 1;
  return a.grantedAt < b.grantedAt ? -1 : 1;
}

function lotView(l: CreditLot): LotView {
  return { pool: l.pool, remaining_points: fromMilli(l.remainingMilli), expires_at: l.expiresAt, granted_at: l.grantedAt };
}

function usageView(u: UsageRecord): UsageView {
  return {
    task_id: u.taskId,
    type: u.type,
    points: fromMilli(u.pointsMilli),
    in_progress: u.inProgress,
    refunded: u.refunded,
    refund_reason: u.refundReason,
    occurred_at: u.occurredAt,
    ended_at: u.inProgress ? null : u.endedAt,
  };
}

export type { KeyPolicy };
