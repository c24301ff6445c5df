/**
 * total_viewers and peak_viewers of broadcasts, written coalesced: one UPDATE at a time per
 * broadcast; admissions that arrive while it runs are added up and written by the next one.
 * A quiet broadcast writes each admission at once (as before); 10,000 viewers arriving
 * together cost a few dozen writes, not 10,000. Each caller still waits until its admission
 * is written, so the owner's view is current once a viewer's stream is open.
 */
import type { BroadcastStore } from './store.js';

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
    }
  }
}
