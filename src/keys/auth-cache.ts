/**
 * Key lookups kept in memory (issue 19: the lookup was one of the two queries of every
 * authenticated request; issue 30: on PostgreSQL the one round trip left), without trusting a
 * stale one: each entry remembers the version of the keys and accounts it was read at, and the
 * version is checked before every use. Unknown keys are never cached (a new key must work at
 * once; guessing is not made cheaper). A cached row carries no billing epoch: that one is read
 * fresh or not at all (src/billing/read-cache.ts).
 *
 * Where the version comes from:
 * - SQLite (`SqliteAuthEpoch`): a counter that triggers bump on every change to a key or an
 *   account, by any process on the file (migration 0700), read through a prepared statement at
 *   most once per event-loop turn: a disabled, deleted or restricted key fails on the very next
 *   request, whichever process changed it.
 * - PostgreSQL: the change feed (src/store/change-feed.ts), moved by the notices triggers send
 *   (migration 0703); undefined while the feed does not listen, and then lookups go to the
 *   database.
 */
import type { ChangeVersions } from '../store/change-feed.js';
import type { SqliteConnection, SqliteStatement } from '../store/database.js';
import type { KeyForAuth } from './tables.js';

export interface AuthVersionSource {
  /** The version now; undefined: nothing cached may be trusted now. */
  version(): number | undefined;
  /** This process changed a key or an account. */
  changed(): void;
}

export class KeyLookupCache {
  private readonly entries = new Map<string, { row: KeyForAuth; version: number }>();

  constructor(
    private readonly source: AuthVersionSource,
    private readonly maxEntries = 10_000,
  ) {}

  /** Read before the lookup it guards, so a change in between is seen next time. */
  version(): number | undefined {
    return this.source.version();
  }

  /** After a change to a key or an account made here: nothing cached is trusted any more. */
  invalidate(): void {
    this.source.changed();
    this.entries.clear();
  }

  get(keyHash: string, version: number): KeyForAuth | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.version === version) return entry.row;
    this.entries.delete(keyHash);
    return undefined;
  }

  set(keyHash: string, row: KeyForAuth, version: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const kept: KeyForAuth = { ...row };
    delete kept.billing_epoch; // true only for the request that read it
    this.entries.set(keyHash, { row: Object.freeze(kept), version });
  }
}

/** SQLite: the auth epoch table (migration 0700), read at most once per turn of the event loop. */
export class SqliteAuthEpoch implements AuthVersionSource {
  private statement: SqliteStatement | undefined;
  /** The epoch read in this turn of the event loop. */
  private turnEpoch: number | undefined;

  constructor(private readonly sqlite: SqliteConnection) {}

  /**
   * Under load many requests start in one turn, and each SQLite statement has a fixed cost (a
   * read transaction) as large as the lookup's. Requests starting in the same turn as the read
   * are as good as simultaneous with it (microseconds apart); changes made through this process
   * drop the reading at once (`changed`).
   */
  version(): number {
    if (this.turnEpoch !== undefined) return this.turnEpoch;
    this.statement ??= this.sqlite.prepare('SELECT epoch FROM auth_epoch WHERE id = 1').pluck();
    const epoch = this.statement.get() as number;
    this.turnEpoch = epoch;
    setImmediate(() => {
      this.turnEpoch = undefined;
    });
    return epoch;
  }

  changed(): void {
    this.turnEpoch = undefined;
  }
}

/** PostgreSQL: the change feed's auth version. */
export function feedAuthVersion(changes: ChangeVersions): AuthVersionSource {
  return { version: () => changes.auth(), changed: () => changes.authChanged() };
}
