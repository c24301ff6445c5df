/**
 * Key lookups kept in memory (issue 19: the lookup was one of the two queries of every
 * authenticated request), without ever trusting a stale one: each entry remembers the auth
 * epoch it was read at, and the epoch (a counter that triggers bump on every change to a
 * key or an account, by any process: migration 0700) is read on every lookup. Reading that
 * one-row table through a prepared statement (once per event-loop turn, see epoch()) costs
 * far less than the joined lookup through the query builder. A changed epoch drops the entry and the lookup
 * reads the database again, so a disabled, deleted or restricted key fails on the very next
 * request, whether this process, another node on the same file or the admin CLI changed it.
 *
 * SQLite only. On PostgreSQL the epoch would cost a network round trip, as much as the lookup
 * itself, so lookups are not cached there (LISTEN/NOTIFY invalidation would be the way).
 * Unknown keys are never cached (a new key must work at once; guessing is not made cheaper).
 */
import type { SqliteConnection, SqliteStatement } from '../store/database.js';
import type { KeyForAuth } from './tables.js';

export class KeyLookupCache {
  private readonly entries = new Map<string, { row: KeyForAuth; epoch: number }>();
  private epochStatement: SqliteStatement | undefined;
  /** The epoch read in this turn of the event loop (see epoch()). */
  private turnEpoch: number | undefined;

  constructor(
    private readonly sqlite: SqliteConnection,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The current epoch; read before the lookup it guards, so a change in between is seen next
   * time. Read at most once per turn of the event loop: under load many requests start in one
   * turn, and each SQLite statement has a fixed cost (a read transaction) as large as the
   * lookup's. Requests starting in the same turn as the read are as good as simultaneous with
   * it (microseconds apart); changes made through this process drop the reading at once
   * (`invalidate`).
   */
  epoch(): number {
    if (this.turnEpoch !== undefined) return this.turnEpoch;
    this.epochStatement ??= this.sqlite.prepare('SELECT epoch FROM auth_epoch WHERE id = 1').pluck();
    const epoch = this.epochStatement.get() as number;
    this.turnEpoch = epoch;
    setImmediate(() => {
      this.turnEpoch = undefined;
    });
    return epoch;
  }

  /** After a change to a key or an account made here: nothing cached is trusted any more. */
  invalidate(): void {
    this.turnEpoch = undefined;
    this.entries.clear();
  }

  get(keyHash: string, epoch: number): KeyForAuth | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.epoch === epoch) return entry.row;
    this.entries.delete(keyHash);
    return undefined;
  }

  set(keyHash: string, row: KeyForAuth, epoch: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { row: Object.freeze(row), epoch });
  }
}
