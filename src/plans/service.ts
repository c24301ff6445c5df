/**
 * Plan assignment. A plan belongs to the account and every key of the account shares it.
 * Three modes (spec "My plan"):
 * - `credit`: points from credit lots (the default; no row needed);
 * - `unlimited-plan`: plan-bound unlimited, a named plan from the catalogue (features,
 *   one-off features, limits), optionally expiring;
 * - `unlimited`: unlimited without plan restrictions, optionally expiring.
 * An expired unlimited authorization no longer applies: the account is in credit mode again.
 */
import { AppError } from '../platform/errors/app-error.js';
import type { Database } from '../store/database.js';
import { DEFAULT_CATALOGUE, DEFAULT_PLAN_NAME, type PlanCatalogue, type PlanDefinition } from './catalogue.js';
import type { AccountPlansTable } from './tables.js';

export type PlanMode = 'credit' | 'unlimited' | 'unlimited-plan';

export interface PlanAssignmentInput {
  mode: PlanMode;
  /** Catalogue name for `unlimited-plan` (default: the default plan). */
  planName?: string | null;
  /** ISO 8601 or null for never. */
  expiresAt?: string | null;
}

export type ActivePlan =
  | { mode: 'credit' }
  | { mode: 'unlimited'; expiresAt: string | null; grantedAt: string }
  | { mode: 'unlimited-plan'; plan: PlanDefinition; expiresAt: string | null; grantedAt: string };

export class PlanService {
  readonly catalogue: PlanCatalogue;

  constructor(
    private readonly database: Database,
    options: {
      catalogue?: PlanCatalogue | null;
      now?: () => Date;
      /** Told after every plan assignment written here (the billing read cache reads epochs again). */
      afterWrite?: () => void;
    } = {},
  ) {
    this.catalogue = { ...DEFAULT_CATALOGUE, ...(options.catalogue ?? {}) };
    this.now = options.now ?? (() => new Date());
    this.afterWrite = options.afterWrite ?? (() => {});
  }

  private readonly now: () => Date;
  private readonly afterWrite: () => void;

  /** Assigns a plan to an account (replaces the previous one; the total-limit count restarts). */
  async setPlan(accountId: string, plan: PlanMode | PlanAssignmentInput): Promise<ActivePlan> {
    const input: PlanAssignmentInput = typeof plan === 'string' ? { mode: plan } : plan;
    const planName = input.mode === 'unlimited-plan' ? (input.planName ?? DEFAULT_PLAN_NAME) : null;
    if (planName !== null && !this.catalogue[planName]) {
      throw new AppError('validation_failed', {
        message: `Unknown plan "${planName}".`,
        details: { field: 'plan_name', valid_values: Object.keys(this.catalogue) },
      });
    }
    if (!['credit', 'unlimited', 'unlimited-plan'].includes(input.mode)) {
      throw new AppError('validation_failed', { details: { field: 'plan', valid_values: ['credit', 'unlimited', 'unlimited-plan'] } });
    }
    if (input.expiresAt && Number.isNaN(Date.parse(input.expiresAt))) {
      throw new AppError('validation_failed', { message: 'expires_at must be ISO 8601.', details: { field: 'expires_at' } });
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt).toISOString() : null;
    const now = this.now().toISOString();
    const row = { mode: input.mode, plan_name: planName, expires_at: expiresAt, granted_at: now, updated_at: now };
    await this.database.db
      .insertInto('account_plans')
      .values({ account_id: accountId, ...row })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
      .execute();
    this.afterWrite();
    return (await this.activePlan(accountId)) ?? { mode: 'credit' };
  }

  /** The authorization in force now (credit when none, expired, or naming a removed plan). */
  async activePlan(accountId: string, at: Date = this.now()): Promise<ActivePlan> {
    const row = await this.database.db.selectFrom('account_plans').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return this.fromRow(row ?? null, at);
  }

  /** Interprets an assignment row (callers that read it together with other data use this). */
  fromRow(row: Pick<AccountPlansTable, 'mode' | 'plan_name' | 'expires_at' | 'granted_at'> | null, at: Date = this.now()): ActivePlan {
    if (!row || row.mode === 'credit') return { mode: 'credit' };
    if (row.expires_at !== null && row.expires_at <= at.toISOString()) return { mode: 'credit' };
    if (row.mode === 'unlimited') return { mode: 'unlimited', expiresAt: row.expires_at, grantedAt: row.granted_at };
    const plan = row.plan_name ? this.catalogue[row.plan_name] : undefined;
    if (!plan) return { mode: 'credit' };
    return { mode: 'unlimited-plan', plan, expiresAt: row.expires_at, grantedAt: row.granted_at };
  }

  /** Throws `plan_feature_not_allowed` when a plan-bound unlimited plan lacks the feature. */
  static assertFeature(plan: ActivePlan, feature: string, field?: string): void {
    if (plan.mode !== 'unlimited-plan') return;
    const f = plan.plan.features as Record<string, boolean>;
    const o = plan.plan.oneoff_features as Record<string, boolean>;
    if (f[feature] === true || o[feature] === true) return;
    throw new AppError('plan_feature_not_allowed', { details: { field: field ?? feature, plan: plan.plan.name } });
  }

  /**
   * Recognizer streams one recording may run (multi_channel: one per channel); throws
   * `plan_feature_not_allowed` with details.field `max_stt_streams` beyond the plan's limit.
   */
  static assertSttStreams(plan: ActivePlan, streams: number): void {
    if (plan.mode !== 'unlimited-plan') return;
    const max = plan.plan.limits.max_stt_streams;
    if (max === null || streams <= max) return;
    throw new AppError('plan_feature_not_allowed', {
      details: { field: 'max_stt_streams', max_stt_streams: max, received: streams, plan: plan.plan.name },
    });
  }
}

/** Module-level helper with the signature the admin CLI and bootstrap call. */
export function setPlan(plans: PlanService, accountId: string, plan: PlanMode | PlanAssignmentInput): Promise<ActivePlan> {
  return plans.setPlan(accountId, plan);
}
