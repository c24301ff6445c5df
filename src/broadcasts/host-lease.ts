/**
 * Hosts that vanish without a word. The hosting process renews its host session's lease on
 * the broadcast (host-session.ts) every third of `leaseMs`; when that process dies, nobody
 * renews it. Every process runs this sweep (each step is a conditional update, so only one
 * process acts on a broadcast): a lapsed lease freezes the broadcast from the lapse (viewers
 * get `host_disconnected`, a new host `start` takes it over, as after a clean drop), and a
 * broadcast frozen longer than the host wait ends (viewers get `ended`). A lapsed lease also
 * lets a new host start at once, before the sweep ran (store.beginHost).
 */
import type { Logger } from 'pino';
import type { BroadcastStore } from './store.js';
import type { ViewerEvent } from './viewer-events.js';

export interface HostSweepDeps {
  store: BroadcastStore;
  publish(broadcastId: string, event: ViewerEvent): Promise<void>;
  leaseMs: number;
  hostWaitMs: number;
  now: () => Date;
  logger: Logger;
}

/** One pass: freeze broadcasts whose host's lease lapsed, end those frozen past the host wait. */
export async function sweepHosts(d: HostSweepDeps): Promise<void> {
  const now = d.now();
  for (const id of await d.store.lapsedHosts(now)) {
    if (await d.store.freezeLapsed(id, now)) {
      d.logger.warn({ broadcast_id: id }, 'broadcast host lease lapsed: frozen');
      await d.publish(id, { event: 'host_disconnected', data: {} });
    }
  }
  for (const { id } of await d.store.frozenSince(new Date(now.getTime() - d.hostWaitMs))) {
    if (await d.store.end(id, now)) await d.publish(id, { event: 'ended', data: { reason: 'host_gone' } });
  }
}

/** Runs the sweep every third of the lease; returns the stop function. */
export function startHostSweep(d: HostSweepDeps): () => void {
  let running = false;
  const timer = setInterval(
    () => {
      if (running) return;
      running = true;
      sweepHosts(d)
        .catch((err: unknown) => d.logger.error({ err }, 'broadcast host sweep failed'))
        .finally(() => {
          running = false;
        });
    },
    Math.max(500, Math.floor(d.leaseMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
