/**
 * The billing store: every read and write of credit lots, usage rows, charges and draws.
 *
 * A charge runs in one transaction that first locks the account's billing row (PostgreSQL:
 * SELECT ... FOR UPDATE; SQLite: transactions are serialized on its single connection), so
 * two charges of one account never interleave: the idempotency check, the monthly spend
 * check, the lot draws and the usage total are decided on one consistent view. Points are
 * integer milli-points throughout.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AccountPlansTable } from '../plans/tables.js';
import { AppError } from '../platform/errors/app-error.js';
import { flag, fromMilli } from '../store/columns.js';
import type { Database } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import type { KeyPolicy } from './key-policy.js';
import { precompile } from './precompiled.js';
import type { CreditLotsTable, UsageRecordsTable } from './tables.js';

type Db = Kysely<Schema> | Transaction<Schema>;

export type Pool = 'account' | 'key';
export type RefundReason = 'no_audio' | 'manual';

export interface CreditLot {
  id: string;
  pool: Pool;
  keyId: string | null;
  grantedMilli: number;
  remainingMilli: number;
  expiresAt: string | null;
  grantedAt: string;
}

export interface UsageRecord {
  id: string;
  accountId: string;
  keyId: string;
  taskId: string | null;
  type: string;
  pointsMilli: number;
  minutes: number;
  inProgress: boolean;
  refunded: boolean;
  refundReason: RefundReason | null;
  occurredAt: string;
  endedAt: string | null;
}

export interface NewUsage {
  id?: string;
  accountId: string;
  keyId: string;
  taskId?: string | null;
  type: string;
  /** Recordings and broadcasts run: ended_at stays null until endUsage. */
  inProgress?: boolean;
}

export interface ChargeRequest {
  /** Unique within the usage row (e.g. `m3` for the fourth minute). */
  idempotencyKey: string;
  milli: number;
  minutes?: number;
}

export interface ChargeContext {
  policy: KeyPolicy;
  /** An unlimited authorization covers the charge: 0 points are recorded (minutes still count). */
  unlimited: boolean;
  now: Date;
  lowThresholdMilli: number;
}

export type Crossing = 'low' | 'exhausted';

export interface ChargeOutcome {
  usage: UsageRecord;
  chargedMilli: number;
  duplicate: boolean;
  /** Account balance (all pools, unexpired) after the charge. */
  accountBalanceMilli: number;
  /** Crossing events to publish (already recorded as sent). */
  crossings: Crossing[];
}

const DAY_MS = 86_400_000;

function toLot(r: CreditLotsTable): CreditLot {
  return {
    id: r.id,
    pool: r.pool as Pool,
    keyId: r.key_id,
    grantedMilli: Number(r.granted_milli),
    remainingMilli: Number(r.remaining_milli),
    expiresAt: r.expires_at,
    grantedAt: r.granted_at,
  };
}

function toUsage(r: UsageRecordsTable): UsageRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    taskId: r.task_id,
    type: r.type,
    pointsMilli: Number(r.points_milli),
    minutes: Number(r.minutes),
    inProgress: Number(r.in_progress) === 1,
    refunded: Number(r.refunded) === 1,
    refundReason: r.refund_reason as RefundReason | null,
    occurredAt: r.occurred_at,
    endedAt: r.ended_at,
  };
}

/** Draw order: the key's dedicated allotment first, then soonest expiry, never-expiring last, oldest grant first. */
export function drawOrder(a: CreditLot, b: CreditLot): number {
  if (a.pool !== b.pool) return a.pool === 'key' ? -1 : 1;
  if (a.expiresAt !== b.expiresAt) {
    if (a.expiresAt === null) return 1;
    if (b.expiresAt === null) return -1;
    return a.expiresAt < b.expiresAt ? -1 : 1;
  }
  return a.grantedAt < b.grantedAt ? -1 : a.grantedAt > b.grantedAt ? 1 : a.id < b.id ? -1 : 1;
}

export class BillingStore {
  constructor(private readonly database: Database) {}

  private get db(): Kysely<Schema> {
    return this.database.db;
  }

  /** Creates the account's billing row if missing and locks it for the rest of the transaction. */
  private async lockAccount(
    trx: Db,
    accountId: string,
    now: Date,
  ): Promise<{ low_armed: number; low_notified_at: string | null; exhausted_armed: number; exhausted_notified_at: string | null }> {
    await trx
      .insertInto('billing_accounts')
      .values({ account_id: accountId, low_armed: 1, exhausted_armed: 1, updated_at: now.toISOString() })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
    const q = trx
      .selectFrom('billing_accounts')
      .select(['low_armed', 'low_notified_at', 'exhausted_armed', 'exhausted_notified_at'])
      .where('account_id', '=', accountId);
    return (this.database.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirstOrThrow();
  }

  async grantLot(input: {
    accountId: string;
    pool: Pool;
    keyId: string | null;
    milli: number;
    expiresAt: string | null;
    now: Date;
    lowThresholdMilli: number;
  }): Promise<CreditLot> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockAccount(trx, input.accountId, input.now);
      const row: CreditLotsTable = {
        id: randomUUID(),
        account_id: input.accountId,
        pool: input.pool,
        key_id: input.pool === 'key' ? input.keyId : null,
        granted_milli: input.milli,
        remaining_milli: input.milli,
        expires_at: input.expiresAt,
        granted_at: input.now.toISOString(),
      };
      await trx.insertInto('credit_lots').values(row).execute();
      await this.rearm(trx, input.accountId, input.now, input.lowThresholdMilli);
      return toLot(row);
    });
  }

  /** Lots with credit left and unexpired that `keyId` can draw on, in draw order. */
  async usableLots(db: Db, accountId: string, keyId: string | null, allowAccountPool: boolean, now: Date): Promise<CreditLot[]> {
    const rows = await db
      .selectFrom('credit_lots')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('remaining_milli', '>', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
      .where((eb) => {
        const ors = [];
        if (keyId !== null) ors.push(eb.and([eb('pool', '=', 'key'), eb('key_id', '=', keyId)]));
        if (allowAccountPool) ors.push(eb('pool', '=', 'account'));
        return ors.length ? eb.or(ors) : eb.val(false);
      })
      .execute();
    return rows.map(toLot).sort(drawOrder);
  }

  async lotsFor(accountId: string, keyId: string, allowAccountPool: boolean, now: Date): Promise<CreditLot[]> {
    return this.usableLots(this.db, accountId, keyId, allowAccountPool, now);
  }

  /** Balance available to a key (its allotment, plus account lots when allowed), in one aggregate query. */
  async availableMilli(accountId: string, keyId: string, allowAccountPool: boolean, now: Date, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('credit_lots')
      .select((eb) => eb.fn.sum<number | string | null>('remaining_milli').as('total'))
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
      .where((eb) => {
        const ors = [eb.and([eb('pool', '=', 'key'), eb('key_id', '=', keyId)])];
        if (allowAccountPool) ors.push(eb('pool', '=', 'account'));
        return eb.or(ors);
      })
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** The account's whole balance (every pool, unexpired): what credit.low / credit.exhausted watch. */
  async accountBalanceMilli(accountId: string, now: Date, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('credit_lots')
      .select((eb) => eb.fn.sum<number | string | null>('remaining_milli').as('total'))
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /**
   * One statement for the hot read path (GET /me/plan, ticket, assertCanCharge): the plan
   * assignment row and the key's and the account pool's unexpired balances. Precompiled.
   */
  private planAndBalancesQuery?: ReturnType<typeof precompile<'account' | 'key' | 'now'>>;

  private planAndBalancesCompiled() {
    if (this.planAndBalancesQuery) return this.planAndBalancesQuery;
    this.planAndBalancesQuery = precompile<'account' | 'key' | 'now'>((param) => {
      const lotSum = (pool: Pool) => {
        const q = this.db
          .selectFrom('credit_lots')
          .select((eb) => eb.fn.sum<number | string | null>('remaining_milli').as('s'))
          .where('account_id', '=', param('account'))
          .where('pool', '=', pool)
          .where('remaining_milli', '>', 0)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', param('now'))]));
        return pool === 'key' ? q.where('key_id', '=', param('key')) : q;
      };
      const planCol = (c: 'mode' | 'plan_name' | 'expires_at' | 'granted_at') =>
        this.db.selectFrom('account_plans').select(c).where('account_id', '=', param('account'));
      return this.db.selectNoFrom([
        planCol('mode').as('mode'),
        planCol('plan_name').as('plan_name'),
        planCol('expires_at').as('expires_at'),
        planCol('granted_at').as('granted_at'),
        lotSum('key').as('key_milli'),
        lotSum('account').as('account_milli'),
      ]);
    });
    return this.planAndBalancesQuery;
  }

  async planAndBalances(
    accountId: string,
    keyId: string,
    now: Date,
  ): Promise<{
    plan: Pick<AccountPlansTable, 'mode' | 'plan_name' | 'expires_at' | 'granted_at'> | null;
    keyMilli: number;
    accountMilli: number;
  }> {
    const { rows } = await this.db.executeQuery<{
      mode: string | null;
      plan_name: string | null;
      expires_at: string | null;
      granted_at: string | null;
      key_milli: number | string | null;
      account_milli: number | string | null;
    }>(this.planAndBalancesCompiled()({ account: accountId, key: keyId, now: now.toISOString() }));
    const row = rows[0]!;
    return {
      plan: row.mode
        ? { mode: row.mode, plan_name: row.plan_name ?? null, expires_at: row.expires_at ?? null, granted_at: row.granted_at ?? '' }
        : null,
      keyMilli: Number(row.key_milli ?? 0),
      accountMilli: Number(row.account_milli ?? 0),
    };
  }

  private readonly minuteSumQueries = new Map<string, ReturnType<typeof precompile<string>>>();

  /** Billable minutes in several [from, to) ranges at once (refunds excluded): one precompiled statement per set of range names. */
  async minuteSums<K extends string>(accountId: string, ranges: Record<K, [string, string]>): Promise<Record<K, number>> {
    const names = (Object.keys(ranges) as K[]).sort();
    const shape = names.join(',');
    let query = this.minuteSumQueries.get(shape);
    if (!query) {
      query = precompile<string>((param) =>
        this.db.selectNoFrom(
          names.map((name) =>
            this.db
              .selectFrom('billing_charges')
              .select((eb) => eb.fn.sum<number | string | null>('minutes').as('s'))
              .where('account_id', '=', param('account'))
              .where('refunded', '=', 0)
              .where('created_at', '>=', param(`${name}:from`))
              .where('created_at', '<', param(`${name}:to`))
              .as(name),
          ),
        ),
      );
      this.minuteSumQueries.set(shape, query);
    }
    const values: Record<string, unknown> = { account: accountId };
    for (const name of names) {
      values[`${name}:from`] = ranges[name][0];
      values[`${name}:to`] = ranges[name][1];
    }
    const { rows } = await this.db.executeQuery<Record<string, number | string | null>>(query(values));
    const row = rows[0] ?? {};
    return Object.fromEntries(names.map((name) => [name, Number(row[name] ?? 0)])) as Record<K, number>;
  }

  async createUsage(input: NewUsage, now: Date, db: Db = this.db): Promise<UsageRecord> {
    const at = now.toISOString();
    const row: UsageRecordsTable = {
      id: input.id ?? randomUUID(),
      account_id: input.accountId,
      key_id: input.keyId,
      task_id: input.taskId ?? null,
      type: input.type,
      points_milli: 0,
      minutes: 0,
      in_progress: flag(input.inProgress ?? false),
      refunded: 0,
      refund_reason: null,
      occurred_at: at,
      // Other types end when they are charged: ended_at equals occurred_at.
      ended_at: input.inProgress ? null : at,
      created_at: at,
    };
    await db.insertInto('usage_records').values(row).execute();
    return toUsage(row);
  }

  async getUsage(id: string, db: Db = this.db): Promise<UsageRecord | null> {
    const r = await db.selectFrom('usage_records').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toUsage(r) : null;
  }

  /** Charges a usage row (see the class comment for the guarantees). Throws auth_quota_exceeded when a budget is short. */
  async charge(usageId: string, req: ChargeRequest, ctx: ChargeContext): Promise<ChargeOutcome> {
    // The row's account never changes, so it is read before the transaction; inside, the
    // account lock comes first (on SQLite a write first takes the write lock at once, so a
    // concurrent writer in another process waits on busy_timeout instead of failing).
    const owner = await this.getUsage(usageId);
    if (!owner) throw new AppError('not_found', { details: { usage_id: usageId } });
    return this.db.transaction().execute(async (trx) => {
      await this.lockAccount(trx, owner.accountId, ctx.now);
      const usage = (await this.getUsage(usageId, trx))!;
      return this.chargeLocked(trx, usage, req, ctx);
    });
  }

  /** Creates a usage row and charges it in one transaction (one-off operations): nothing is recorded when refused. */
  async createAndCharge(usage: NewUsage, req: ChargeRequest, ctx: ChargeContext): Promise<ChargeOutcome> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockAccount(trx, usage.accountId, ctx.now);
      const chargeKey = `oneoff:${req.idempotencyKey}`;
      const prior = await trx
        .selectFrom('billing_charges')
        .select(['usage_id'])
        .where('idempotency_key', '=', chargeKey)
        .executeTakeFirst();
      if (prior) return this.duplicateOutcome(trx, prior.usage_id, ctx.now);
      const row = await this.createUsage(usage, ctx.now, trx);
      return this.chargeLocked(trx, row, { ...req, idempotencyKey: req.idempotencyKey }, ctx, chargeKey);
    });
  }

  private async duplicateOutcome(trx: Db, usageId: string, now: Date): Promise<ChargeOutcome> {
    const usage = (await this.getUsage(usageId, trx))!;
    return {
      usage,
      chargedMilli: 0,
      duplicate: true,
      accountBalanceMilli: await this.accountBalanceMilli(usage.accountId, now, trx),
      crossings: [],
    };
  }

  private async chargeLocked(
    trx: Db,
    usage: UsageRecord,
    req: ChargeRequest,
    ctx: ChargeContext,
    chargeKey = `${usage.id}:${req.idempotencyKey}`,
  ): Promise<ChargeOutcome> {
    const state = await this.lockAccount(trx, usage.accountId, ctx.now);
    const prior = await trx.selectFrom('billing_charges').select(['usage_id']).where('idempotency_key', '=', chargeKey).executeTakeFirst();
    if (prior) return this.duplicateOutcome(trx, prior.usage_id, ctx.now);
    if (usage.refunded)
      throw new AppError('invalid_processing_status', { message: 'The usage row was refunded.', details: { usage_id: usage.id } });
    if (!Number.isInteger(req.milli) || req.milli < 0)
      throw new AppError('internal_error', { message: 'charge amount must be whole milli-points' });

    const milli = ctx.unlimited ? 0 : req.milli;
    const nowIso = ctx.now.toISOString();
    const draws: { lot: CreditLot; milli: number }[] = [];
    if (milli > 0) {
      const limit = ctx.policy.monthlySpendLimit;
      if (limit !== null) {
        const limitMilli = Math.round(limit * 1000);
        const spent = await this.monthlySpentMilli(usage.keyId, ctx.now, trx);
        if (spent + milli > limitMilli) {
          throw quotaError('key_monthly_limit', Math.max(0, limitMilli - spent), milli);
        }
      }
      const lots = await this.usableLots(trx, usage.accountId, usage.keyId, ctx.policy.allowAccountPool, ctx.now);
      const available = lots.reduce((s, l) => s + l.remainingMilli, 0);
      if (available < milli) {
        const scope = ctx.policy.allowAccountPool ? 'account_credit' : 'key_allotment';
        throw quotaError(scope, available, milli);
      }
      let left = milli;
      for (const lot of lots) {
        if (left === 0) break;
        const take = Math.min(left, lot.remainingMilli);
        draws.push({ lot, milli: take });
        left -= take;
      }
    }

    await trx
      .insertInto('billing_charges')
      .values({
        idempotency_key: chargeKey,
        usage_id: usage.id,
        account_id: usage.accountId,
        key_id: usage.keyId,
        milli,
        minutes: req.minutes ?? 0,
        refunded: 0,
        created_at: nowIso,
      })
      .execute();
    for (const d of draws) {
      // The guard keeps a lot from going negative even if a caller bypassed the lock.
      const res = await trx
        .updateTable('credit_lots')
        .set((eb) => ({ remaining_milli: eb('remaining_milli', '-', d.milli) }))
        .where('id', '=', d.lot.id)
        .where('remaining_milli', '>=', d.milli)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError('internal_error', { message: 'credit lot changed during a charge' });
      await trx.insertInto('billing_draws').values({ charge_key: chargeKey, lot_id: d.lot.id, milli: d.milli }).execute();
    }
    await trx
      .updateTable('usage_records')
      .set((eb) => ({ points_milli: eb('points_milli', '+', milli), minutes: eb('minutes', '+', req.minutes ?? 0) }))
      .where('id', '=', usage.id)
      .execute();

    const balance = await this.accountBalanceMilli(usage.accountId, ctx.now, trx);
    const crossings: Crossing[] = [];
    if (milli > 0) {
      const due = (armed: number, last: string | null) =>
        Number(armed) === 1 && (last === null || ctx.now.getTime() - Date.parse(last) >= DAY_MS);
      if (balance < ctx.lowThresholdMilli && due(state.low_armed, state.low_notified_at)) crossings.push('low');
      if (balance <= 0 && due(state.exhausted_armed, state.exhausted_notified_at)) crossings.push('exhausted');
      if (crossings.length) {
        await trx
          .updateTable('billing_accounts')
          .set({
            ...(crossings.includes('low') ? { low_armed: 0, low_notified_at: nowIso } : {}),
            ...(crossings.includes('exhausted') ? { exhausted_armed: 0, exhausted_notified_at: nowIso } : {}),
            updated_at: nowIso,
          })
          .where('account_id', '=', usage.accountId)
          .execute();
      }
    }
    const updated = (await this.getUsage(usage.id, trx))!;
    return { usage: updated, chargedMilli: milli, duplicate: false, accountBalanceMilli: balance, crossings };
  }

  /**
   * Records that credit.exhausted is due for a refused start/continuation (same once-per-24h
   * gate as charges). Returns true when the event should be published.
   */
  async claimExhaustedNotice(accountId: string, now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const state = await this.lockAccount(trx, accountId, now);
      const last = state.exhausted_notified_at;
      if (Number(state.exhausted_armed) !== 1 || (last !== null && now.getTime() - Date.parse(last) < DAY_MS)) return false;
      await trx
        .updateTable('billing_accounts')
        .set({ exhausted_armed: 0, exhausted_notified_at: now.toISOString(), updated_at: now.toISOString() })
        .where('account_id', '=', accountId)
        .execute();
      return true;
    });
  }

  /** Re-arms the crossing events once the balance is back above their levels. */
  private async rearm(trx: Db, accountId: string, now: Date, lowThresholdMilli: number): Promise<void> {
    const balance = await this.accountBalanceMilli(accountId, now, trx);
    if (balance >= lowThresholdMilli) {
      await trx
        .updateTable('billing_accounts')
        .set({ low_armed: 1, updated_at: now.toISOString() })
        .where('account_id', '=', accountId)
        .execute();
    }
    if (balance > 0) {
      await trx
        .updateTable('billing_accounts')
        .set({ exhausted_armed: 1, updated_at: now.toISOString() })
        .where('account_id', '=', accountId)
        .execute();
    }
  }

  /** Marks a running recording or broadcast as ended. */
  async endUsage(usageId: string, now: Date): Promise<UsageRecord | null> {
    await this.db
      .updateTable('usage_records')
      .set({ in_progress: 0, ended_at: now.toISOString() })
      .where('id', '=', usageId)
      .where('in_progress', '=', 1)
      .execute();
    return this.getUsage(usageId);
  }

  /** Full refund: every draw goes back to the lot it came from. Refunding twice changes nothing. */
  async refund(
    usageId: string,
    reason: RefundReason,
    now: Date,
    lowThresholdMilli: number,
  ): Promise<{ usage: UsageRecord; refundedMilli: number } | null> {
    const usage = await this.getUsage(usageId);
    if (!usage) return null;
    return this.db.transaction().execute(async (trx) => {
      await this.lockAccount(trx, usage.accountId, now);
      const fresh = (await this.getUsage(usageId, trx))!;
      if (fresh.refunded) return { usage: fresh, refundedMilli: 0 };
      const draws = await trx
        .selectFrom('billing_draws')
        .innerJoin('billing_charges', 'billing_charges.idempotency_key', 'billing_draws.charge_key')
        .select(['billing_draws.lot_id', 'billing_draws.milli'])
        .where('billing_charges.usage_id', '=', usageId)
        .where('billing_charges.refunded', '=', 0)
        .execute();
      let total = 0;
      for (const d of draws) {
        const m = Number(d.milli);
        total += m;
        await trx
          .updateTable('credit_lots')
          .set((eb) => ({ remaining_milli: eb('remaining_milli', '+', m) }))
          .where('id', '=', d.lot_id)
          .execute();
      }
      await trx.updateTable('billing_charges').set({ refunded: 1 }).where('usage_id', '=', usageId).execute();
      await trx
        .updateTable('usage_records')
        .set({ refunded: 1, refund_reason: reason, points_milli: 0, minutes: 0 })
        .where('id', '=', usageId)
        .execute();
      await this.rearm(trx, usage.accountId, now, lowThresholdMilli);
      return { usage: (await this.getUsage(usageId, trx))!, refundedMilli: total };
    });
  }

  /** Usage rows of the account, newest first, and the total count. */
  async listUsage(accountId: string, page: number, perPage: number): Promise<{ rows: UsageRecord[]; total: number }> {
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('usage_records')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst(),
      this.db
        .selectFrom('usage_records')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
    ]);
    return { rows: rows.map(toUsage), total: Number(count?.n ?? 0) };
  }

  /** Points charged to a key this calendar month (UTC), refunds excluded. */
  async monthlySpentMilli(keyId: string, now: Date, db: Db = this.db): Promise<number> {
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const row = await db
      .selectFrom('billing_charges')
      .select((eb) => eb.fn.sum<number | string | null>('milli').as('total'))
      .where('key_id', '=', keyId)
      .where('refunded', '=', 0)
      .where('created_at', '>=', monthStart)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** Minute charges in [from, to), oldest first (the rolling window's recovery time needs them). */
  async minuteTimeline(accountId: string, from: string, to: string): Promise<{ at: string; minutes: number }[]> {
    const rows = await this.db
      .selectFrom('billing_charges')
      .select(['created_at', 'minutes'])
      .where('account_id', '=', accountId)
      .where('refunded', '=', 0)
      .where('minutes', '>', 0)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .orderBy('created_at', 'asc')
      .execute();
    return rows.map((r) => ({ at: r.created_at, minutes: Number(r.minutes) }));
  }

  /** Recordings and broadcasts in progress: the account's and the key's. */
  async liveSessions(accountId: string, keyId: string): Promise<{ account: number; key: number }> {
    const rows = await this.db
      .selectFrom('usage_records')
      .select(['key_id'])
      .where('account_id', '=', accountId)
      .where('in_progress', '=', 1)
      .execute();
    return { account: rows.length, key: rows.filter((r) => r.key_id === keyId).length };
  }
}

function quotaError(
  scope: 'key_monthly_limit' | 'account_credit' | 'key_allotment',
  remainingMilli: number,
  requiredMilli: number,
): AppError {
  return new AppError('auth_quota_exceeded', {
    details: { budget_scope: scope, remaining_budget: fromMilli(remainingMilli), required: fromMilli(requiredMilli) },
  });
}
