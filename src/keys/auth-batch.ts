/**
 * Key lookups of the requests that arrive together, read in one statement (PostgreSQL, issue
 * 30): the keys not in memory (auth-cache.ts), or every key while the change feed does not
 * listen. Such a lookup must be read fresh (a disabled or deleted key must fail on the very next
 * request, whichever process changed it), and on PostgreSQL each statement is a network round
 * trip whose driver work costs this process more than the rest of a small request. Lookups asked for in one turn of the event loop (the requests read from the sockets
 * in one poll) are sent as one `key_hash = any($1)` statement once that turn ends, so the
 * statement starts after every request it answers began: each still sees everything committed
 * before it arrived, which is all "fresh" promises. Nothing is kept once answered. Requests for
 * the same key share its row (frozen); a failed statement fails each of them (the Authenticator
 * turns that into auth_service_error).
 */
import type { KeyForAuth } from './tables.js';

type Waiter = { resolve: (row: KeyForAuth | null) => void; reject: (err: unknown) => void };

export class KeyLookupBatch {
  private pending: Map<string, Waiter[]> | undefined;

  constructor(
    /** Reads the keys with these hashes (deleted ones included), in any order. */
    private readonly read: (hashes: string[]) => Promise<KeyForAuth[]>,
  ) {}

  get(keyHash: string): Promise<KeyForAuth | null> {
    return new Promise((resolve, reject) => {
      let pending = this.pending;
      if (!pending) {
        pending = new Map();
        this.pending = pending;
        setImmediate(() => this.flush());
      }
      const waiters = pending.get(keyHash);
      if (waiters) waiters.push({ resolve, reject });
      else pending.set(keyHash, [{ resolve, reject }]);
    });
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    this.read([...pending.keys()]).then(
      (rows) => {
        for (const row of rows) {
          const waiters = pending.get(row.key_hash);
          if (!waiters) continue;
          pending.delete(row.key_hash);
          const shared = waiters.length > 1 ? Object.freeze(row) : row;
          for (const w of waiters) w.resolve(shared);
        }
        for (const waiters of pending.values()) for (const w of waiters) w.resolve(null);
      },
      (err: unknown) => {
        for (const waiters of pending.values()) for (const w of waiters) w.reject(err);
      },
    );
  }
}
