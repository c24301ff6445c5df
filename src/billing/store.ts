/**
 * The billing store: the writes of credit lots, usage rows, charges and draws (the reads
 * are in reads.ts).
 *
 * A charge runs in one transaction that first locks the account's billing row (PostgreSQL:
 * SELECT ... FOR UPDATE; SQLite: transactions are serialized on its single connection), so
 * two charges of one account never interleave: the idempotency check, the monthly spend
 * check, the lot draws and the usage total are decided on one consistent view. Points are
 * integer milli-points throughout.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { flag, fromMilli } from '../store/columns.js';
import type { KeyPolicy } from './key-policy.js';
import { BillingReads, type CreditLot, type Db, type Pool, type RefundReason, toLot, toUsage, type UsageRecord } from './reads.js';
import type { CreditLotsTable, UsageRecordsTable } from './tables.js';

export type { CreditLot, Pool, RefundReason, UsageRecord } from './reads.js';
export { drawOrder } from './reads.js';

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
  /** Runs in the charge's transaction when it crosses a level (the notifications commit with the charge). */
  onCrossings?: (crossings: Crossing[], balanceMilli: number, within: Db) => Promise<void>;
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

export class BillingStore extends BillingReads {
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
    return this.writing(
      this.db.transaction().execute(async (trx) => {
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
      }),
    );
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

  /** Charges a usage row (see the class comment for the guarantees). Throws auth_quota_exceeded when a budget is short. */
  async charge(usageId: string, req: ChargeRequest, ctx: ChargeContext): Promise<ChargeOutcome> {
    // The row's account never changes, so it is read before the transaction; inside, the
    // account lock comes first (on SQLite a write first takes the write lock at once, so a
    // concurrent writer in another process waits on busy_timeout instead of failing).
    const owner = await this.getUsage(usageId);
    if (!owner) throw new AppError('not_found', { details: { usage_id: usageId } });
    return this.writing(
      this.db.transaction().execute(async (trx) => {
        await this.lockAccount(trx, owner.accountId, ctx.now);
        const usage = (await this.getUsage(usageId, trx))!;
        return this.chargeLocked(trx, usage, req, ctx);
      }),
    );
  }

  /** Creates a usage row and charges it in one transaction (one-off operations): nothing is recorded when refused. */
  async createAndCharge(usage: NewUsage, req: ChargeRequest, ctx: ChargeContext): Promise<ChargeOutcome> {
    return this.writing(
      this.db.transaction().execute(async (trx) => {
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
      }),
    );
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
        await ctx.onCrossings?.(crossings, balance, trx);
      }
    }
    const updated = (await this.getUsage(usage.id, trx))!;
    return { usage: updated, chargedMilli: milli, duplicate: false, accountBalanceMilli: balance, crossings };
  }

  /**
   * Records that credit.exhausted is due for a refused start/continuation (same once-per-24h
   * gate as charges). Returns true when the event should be published.
   */
  async claimExhaustedNotice(
    accountId: string,
    now: Date,
    /** Runs in the claiming transaction with the account balance (the notification commits with the claim). */
    onClaim?: (balanceMilli: number, within: Db) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const state = await this.lockAccount(trx, accountId, now);
      const last = state.exhausted_notified_at;
      if (Number(state.exhausted_armed) !== 1 || (last !== null && now.getTime() - Date.parse(last) < DAY_MS)) return false;
      await trx
        .updateTable('billing_accounts')
        .set({ exhausted_armed: 0, exhausted_notified_at: now.toISOString(), updated_at: now.toISOString() })
        .where('account_id', '=', accountId)
        .execute();
      await onClaim?.(await this.accountBalanceMilli(accountId, now, trx), trx);
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
    return this.writing(
      this.db.transaction().execute(async (trx) => {
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
      }),
    );
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
