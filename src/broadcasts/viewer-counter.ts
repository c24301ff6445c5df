/**
 * total_viewers and peak_viewers of broadcasts, written coalesced: one UPDATE at a time per
 * broadcast, for every admission gathered before it. On SQLite a write finishes within the
 * event-loop turn, so without gathering nearly every admission of a crowd wrote its own UPDATE:
 * in bench:broadcast (10,000 viewers) those writes were ~1.1 s of the server's CPU, a third of
 * all admission work. Before each write the admissions gather while they keep coming: turn
 * after turn of the event loop as long as each turn brings more, at most GATHER_MS. A crowd's
 * requests read in one poll share the write that follows it; a steady trickle (one admission a
 * turn) costs at most one write per GATHER_MS; a lone admission is written after one turn.
 * (A fixed GATHER_MS pause after every write made each wave of bench:broadcast's clients, 100
 * connecting at once, wait for a write, 5 ms and a second write: 0.5 s of 10,000 viewers'
 * connect time; session 21.) Each caller still waits until its admission is written, so the
 * owner's view is current once a viewer's stream is open.
 */
import type { BroadcastStore } from './store.js';

/** The longest admissions wait for more to join them before their write. */
export const GATHER_MS = 5;

interface Pending {
  added: number;
  peak: number;
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

export class ViewerCounter {
  /** Per broadcast: the admissions waiting for the next write (present while a write runs). */
  private readonly pending = new Map<string, Pending | null>();

  constructor(private readonly store: Pick<BroadcastStore, 'countViewer'>) {}

  /** One admission; `current` is the number of seated viewers it made. */
  count(broadcastId: string, current: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const running = this.pending.has(broadcastId);
      const p = this.pending.get(broadcastId) ?? { added: 0, peak: 0, waiters: [] };
      p.added++;
      p.peak = Math.max(p.peak, current);
      p.waiters.push({ resolve, reject });
      this.pending.set(broadcastId, p);
      if (!running) void this.write(broadcastId);
    });
  }

  private async write(broadcastId: string): Promise<void> {
    for (;;) {
      await this.gather(broadcastId);
      const p = this.pending.get(broadcastId);
      if (!p) {
        this.pending.delete(broadcastId);
        return;
      }
      this.pending.set(broadcastId, null); // running, nothing waiting yet
      try {
        await this.store.countViewer(broadcastId, p.peak, p.added);
        for (const w of p.waiters) w.resolve();
      } catch (err) {
        for (const w of p.waiters) w.reject(err);
      }
    }
  }

  /** Until a turn of the event loop brings no admission for the broadcast, at most GATHER_MS. */
  private async gather(broadcastId: string): Promise<void> {
    const until = Date.now() + GATHER_MS;
    let seen = this.pending.get(broadcastId)?.added ?? 0;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const now = this.pending.get(broadcastId)?.added ?? 0;
      if (now === seen || Date.now() >= until) return;
      seen = now;
    }
  }
}
