/**
 * Billing reads: lots, balances, usage pages, monthly spend, minutes for plan limits, live
 * sessions. The hot-path reads (plan with balances, minute sums) are precompiled statements
 * (precompiled.ts). BillingStore (store.ts) adds the writes on top.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { AccountPlansTable } from '../plans/tables.js';
import type { Database } from '../store/database.js';
import { precompile } from '../store/precompiled.js';
import type { Schema } from '../store/schema.js';
import type { BillingReadCache, Fresh, LimitMinutes, LimitMinutesQuery } from './read-cache.js';
import { untilOf } from './read-cache.js';
import type { CreditLotsTable, UsageRecordsTable } from './tables.js';

export type Db = Kysely<Schema> | Transaction<Schema>;

export type Pool = 'account' | 'key';
/** Why points went back: no audio recorded, an operator's refund, or an operation that produced nothing (failed). */
export type RefundReason = 'no_audio' | 'manual' | 'failed';

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

export function toLot(r: CreditLotsTable): CreditLot {
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

export function toUsage(r: UsageRecordsTable): UsageRecord {
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

export type PlanAndBalances = {
  plan: Pick<AccountPlansTable, 'mode' | 'plan_name' | 'expires_at' | 'granted_at'> | null;
  keyMilli: number;
  accountMilli: number;
};

export class BillingReads {
  constructor(
    protected readonly database: Database,
    /** The plan, balances and minute counts kept in memory behind the billing epoch (read-cache.ts). */
    private readonly cache?: BillingReadCache,
  ) {}

  /** Runs a write to lots or charges; afterwards the cache reads the epochs again. */
  protected async writing<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.cache?.written();
    }
  }

  protected get db(): Kysely<Schema> {
    return this.database.db;
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
      // One row whether or not the account has a plan row: a one-row derived table left-joined
      // to the plan (cheaper than a subquery per plan column).
      return this.db
        .selectFrom(this.db.selectNoFrom(sql<number>`1`.as('one')).as('one'))
        .leftJoin('account_plans as p', (join) => join.on('p.account_id', '=', param('account')))
        .select([
          'p.mode',
          'p.plan_name',
          'p.expires_at',
          'p.granted_at',
          lotSum('key').as('key_milli'),
          lotSum('account').as('account_milli'),
          this.db
            .selectFrom('credit_lots')
            .select((eb) => eb.fn.min<string | null>('expires_at').as('e'))
            .where('account_id', '=', param('account'))
            .where('remaining_milli', '>', 0)
            .where('expires_at', '>', param('now'))
            .as('next_expiry'),
        ]);
    });
    return this.planAndBalancesQuery;
  }

  /**
   * The plan assignment row and the key's and the account pool's unexpired balances, cached
   * behind the billing epoch: on SQLite always, on PostgreSQL while the change feed listens or
   * when `epoch` (read by this request's key lookup) is given (read-cache.ts).
   */
  async planAndBalances(accountId: string, keyId: string, now: Date, epoch?: number): Promise<PlanAndBalances> {
    if (!this.cache) return (await this.readPlanAndBalances(accountId, keyId, now)).value;
    return this.cache.through(
      accountId,
      `p\u0000${accountId}\u0000${keyId}`,
      now.getTime(),
      () => this.readPlanAndBalances(accountId, keyId, now),
      epoch,
    );
  }

  private async readPlanAndBalances(accountId: string, keyId: string, now: Date): Promise<Fresh<PlanAndBalances>> {
    const { rows } = await this.db.executeQuery<{
      mode: string | null;
      plan_name: string | null;
      expires_at: string | null;
      granted_at: string | null;
      key_milli: number | string | null;
      account_milli: number | string | null;
      next_expiry: string | null;
    }>(this.planAndBalancesCompiled()({ account: accountId, key: keyId, now: now.toISOString() }));
    const row = rows[0]!;
    return {
      value: Object.freeze({
        plan: row.mode
          ? { mode: row.mode, plan_name: row.plan_name ?? null, expires_at: row.expires_at ?? null, granted_at: row.granted_at ?? '' }
          : null,
        keyMilli: Number(row.key_milli ?? 0),
        accountMilli: Number(row.account_milli ?? 0),
      }),
      // The balances hold until the next lot expires (the plan's own expiry is checked by the caller at each use).
      validUntilMs: untilOf(row.next_expiry),
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

  /**
   * The minute counts of a plan's limits in one statement. Cached (on SQLite; on PostgreSQL while
   * the change feed listens or when the query carries the request's epoch: read-cache.ts) until
   * a charge or a refund of the account (its epoch), the end of the plan day, the oldest counted
   * charge leaving the rolling window, or the instant of a charge stamped later than now
   * (another process's clock) would change them.
   */
  async limitMinutes(accountId: string, q: LimitMinutesQuery, now: Date): Promise<LimitMinutes> {
    if (!this.cache) return (await this.readLimitMinutes(accountId, q, false)).value;
    const key = `m\u0000${accountId}\u0000${q.day[0]}\u0000${q.rolling ? q.windowMs : ''}\u0000${q.totalFrom ?? ''}`;
    // Bounds (a second statement) only for a value the cache keeps.
    return this.cache.through(accountId, key, now.getTime(), (kept) => this.readLimitMinutes(accountId, q, kept), q.epoch);
  }

  private limitBoundsQuery?: ReturnType<typeof precompile<'account' | 'from' | 'until'>>;

  private async readLimitMinutes(accountId: string, q: LimitMinutesQuery, withBounds: boolean): Promise<Fresh<LimitMinutes>> {
    // Charges made now count: the ranges end just after now.
    const until = new Date(q.nowMs + 1).toISOString();
    const rollingFrom = q.rolling ? new Date(q.nowMs - q.windowMs).toISOString() : null;
    const ranges: Record<string, [string, string]> = { daily: q.day };
    if (rollingFrom !== null) ranges.rolling = [rollingFrom, until];
    if (q.totalFrom !== null) ranges.total = [q.totalFrom, until];
    const sums = await this.minuteSums(accountId, ranges);
    const value: LimitMinutes = Object.freeze({
      daily: sums.daily ?? 0,
      rolling: rollingFrom === null ? null : (sums.rolling ?? 0),
      total: q.totalFrom === null ? null : (sums.total ?? 0),
    });
    if (!withBounds) return { value, validUntilMs: 0 };
    this.limitBoundsQuery ??= precompile<'account' | 'from' | 'until'>((param) => {
      const charges = () => this.db.selectFrom('billing_charges').where('account_id', '=', param('account'));
      return this.db.selectNoFrom([
        charges()
          .select((eb) => eb.fn.min<string | null>('created_at').as('t'))
          .where('refunded', '=', 0)
          .where('minutes', '>', 0)
          .where('created_at', '>=', param('from'))
          .where('created_at', '<', param('until'))
          .as('oldest'),
        charges()
          .select((eb) => eb.fn.min<string | null>('created_at').as('t'))
          .where('created_at', '>=', param('until'))
          .as('later'),
      ]);
    });
    const { rows } = await this.db.executeQuery<{ oldest: string | null; later: string | null }>(
      this.limitBoundsQuery({ account: accountId, from: rollingFrom ?? until, until }),
    );
    const bounds = rows[0];
    const leavesWindow = rollingFrom === null || !bounds?.oldest ? Number.POSITIVE_INFINITY : untilOf(bounds.oldest) + q.windowMs;
    // `until` is now + 1 ms: a charge stamped at or after it starts counting once now reaches it.
    const laterCounts = bounds?.later ? untilOf(bounds.later) - 1 : Number.POSITIVE_INFINITY;
    return { value, validUntilMs: Math.min(untilOf(q.day[1]), leavesWindow, laterCounts) };
  }

  async getUsage(id: string, db: Db = this.db): Promise<UsageRecord | null> {
    const r = await db.selectFrom('usage_records').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toUsage(r) : null;
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
