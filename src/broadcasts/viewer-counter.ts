/**
 * total_viewers and peak_viewers of broadcasts, written coalesced: one UPDATE at a time per
 * broadcast; admissions that arrive while it runs, and for GATHER_MS after it, are added up and
 * written by the next one. An admission after a quiet spell is written at once (as before). On
 * SQLite a write finishes within the event-loop turn, so without the gathering pause nearly
 * every admission of a crowd wrote its own UPDATE: in bench:broadcast (10,000 viewers) those
 * writes were ~1.1 s of the server's CPU, a third of all admission work. With it a crowd
 * costs at most one write per GATHER_MS per broadcast. Each caller still waits until its
 * admission is written, so the owner's view is current once a viewer's stream is open.
 */
import type { BroadcastStore } from './store.js';

/** How long after a write the admissions that arrived during it wait for more to join them. */
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
      // The slot stays taken for GATHER_MS: admissions of a crowd gather for the next write.
      await new Promise((r) => setTimeout(r, GATHER_MS));
    }
  }
}
