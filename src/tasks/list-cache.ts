/**
 * Rendered task lists kept in this process, each with the account's list version it was
 * rendered at (task_list_versions, bumped by triggers in the same transaction as every task
 * write). A copy is served only while the database still holds that version, so a write by
 * any process makes every process render again; nothing here is trusted without that check.
 * Least recently used copies go first once the total size passes the limit.
 */

interface Entry {
  version: number;
  body: Buffer;
}

/** 10,000 tasks render to about 4 MB: room for the large lists of a dozen accounts. */
export const DEFAULT_LIST_CACHE_BYTES = 64 * 1024 * 1024;

export class TaskListCache {
  // Map iteration order is insertion order: re-inserting on use keeps the oldest first.
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_LIST_CACHE_BYTES) {}

  /** The body rendered at exactly `version`, or undefined. */
  get(key: string, version: number): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  /** Keeps `body` unless a copy of a newer version is already here (two renders raced). */
  set(key: string, version: number, body: Buffer): void {
    const old = this.entries.get(key);
    if (old && old.version > version) return;
    if (old) this.remove(key, old);
    if (body.byteLength > this.maxBytes) return;
    this.entries.set(key, { version, body });
    this.bytes += body.byteLength;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(k, e);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.byteLength;
  }
}
