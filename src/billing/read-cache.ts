/**
 * The hot billing reads kept in memory (issue 30: GET /me/plan and every limits check read the
 * plan, the balances and the minute counts on each request), without ever trusting a stale
 * one. Each entry remembers the account's billing epoch it was read at (a per-account counter
 * that triggers bump on every change to the account's plan, credit lots or charges, by any
 * process on the same database: migrations 0701 and 0702) and the instant until which time alone
 * cannot change it (the next lot expiry, the next charge leaving the rolling window...). The
 * epoch is checked before every use, so a top-up, a spend, a refund
 * or a plan change made anywhere shows on the very next read; it is read before the database
 * read it guards, so a change in between is seen the next time.
 *
 * On SQLite the epoch is read here (a prepared statement, microseconds). On PostgreSQL that
 * read would cost a round trip of its own, as much as the reads it guards. There the change
 * feed's version for the account stands in for it (src/store/change-feed.ts: moved by the
 * notices triggers send, migration 0704, and by this process's own writes) while the feed
 * listens; otherwise the epoch read with the request's key (the same statement,
 * src/keys/store.ts, migration 0702) when the caller passes it in; a read with neither (a live
 * session's per-minute check while the feed does not listen) goes to the database. The two kinds
 * of number are never compared with each other (`Entry.fed`).
 */
import type { ChangeVersions } from '../store/change-feed.js';
import type { SqliteConnection, SqliteStatement } from '../store/database.js';

/** What a plan's limits count (see LimitsCalculator.evaluate). */
export interface LimitMinutesQuery {
  /** The plan day [start, end), ISO. */
  day: [string, string];
  /** Whether the plan has a rolling limit (its window ends now). */
  rolling: boolean;
  /** When the plan was granted, or null when the plan has no total limit (counted up to now). */
  totalFrom: string | null;
  /** Now, in epoch milliseconds: charges made now count. */
  nowMs: number;
  /** The rolling window's length (how long a charge counts in it). */
  windowMs: number;
  /** The account's billing epoch read by this request (PostgreSQL), when the caller has one. */
  epoch?: number;
}

export interface LimitMinutes {
  daily: number;
  rolling: number | null;
  total: number | null;
}

export interface Fresh<T> {
  value: T;
  /** Epoch milliseconds from which the value may be out of date even with no write (Infinity: never). */
  validUntilMs: number;
}

interface Entry {
  epoch: number;
  /** Whether `epoch` is the change feed's version (PostgreSQL) rather than a billing epoch. */
  fed: boolean;
  validUntilMs: number;
  value: unknown;
}

export class BillingReadCache {
  private readonly entries = new Map<string, Entry>();
  private epochStatement: SqliteStatement | undefined;
  /** Epochs read in this turn of the event loop (see epoch()). */
  private readonly turnEpochs = new Map<string, number>();
  private turnEnds = false;

  constructor(
    /** SQLite: where epochs are read; none (PostgreSQL): the feed's versions, or epochs callers pass. */
    private readonly sqlite: SqliteConnection | undefined,
    private readonly changes?: ChangeVersions,
    private readonly maxEntries = 20_000,
  ) {}

  /**
   * The account's billing epoch now (0 before the account's first billing write). Read at most
   * once per account per turn of the event loop: one request reads the plan and then the
   * minutes, and under load many requests start in one turn; each SQLite statement has a fixed
   * cost as large as the read it guards. Requests in the same turn as the reading are as good
   * as simultaneous with it (the key cache does the same, src/keys/auth-cache.ts); a write
   * made through this process drops the readings at once (`written`).
   */
  epoch(accountId: string): number | undefined {
    if (!this.sqlite) return undefined;
    const known = this.turnEpochs.get(accountId);
    if (known !== undefined) return known;
    this.epochStatement ??= this.sqlite.prepare('SELECT epoch FROM billing_epoch WHERE account_id = ?').pluck();
    const epoch = (this.epochStatement.get(accountId) as number | undefined) ?? 0;
    this.turnEpochs.set(accountId, epoch);
    if (!this.turnEnds) {
      this.turnEnds = true;
      setImmediate(() => {
        this.turnEnds = false;
        this.turnEpochs.clear();
      });
    }
    return epoch;
  }

  /** After a write to plans, lots or charges by this process: epochs are read again. */
  written(): void {
    this.turnEpochs.clear();
    this.changes?.billingChanged();
  }

  /**
   * The value cached under `key` for the account when its epoch has not moved and time has not
   * run past its validity; otherwise `read(true)`, kept for next time, or `read(false)` when
   * nothing can be kept (the read may then skip finding out how long it holds). A read that
   * fails is not kept.
   * `knownEpoch`: the account's epoch read by this request (PostgreSQL's key lookup), used when
   * the change feed does not listen; without either and without SQLite there is nothing to
   * trust, and the read goes to the database.
   */
  async through<T>(
    accountId: string,
    key: string,
    nowMs: number,
    read: (kept: boolean) => Promise<Fresh<T>>,
    knownEpoch?: number,
  ): Promise<T> {
    const version = this.changes?.billing(accountId);
    const fed = version !== undefined;
    const epoch = version ?? knownEpoch ?? this.epoch(accountId);
    if (epoch === undefined) return (await read(false)).value;
    const entry = this.entries.get(key);
    if (entry && entry.epoch === epoch && entry.fed === fed && nowMs < entry.validUntilMs) return entry.value as T;
    const fresh = await read(true);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { epoch, fed, validUntilMs: fresh.validUntilMs, value: fresh.value });
    return fresh.value;
  }
}

/** Milliseconds of an ISO instant, Infinity for none. */
export function untilOf(iso: string | null | undefined): number {
  if (iso === null || iso === undefined) return Number.POSITIVE_INFINITY;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}
