/**
 * The subscriber side of bench:fanout's two-process rows: a second Parley instance (its own
 * process, its own Redis connection) with N session-stream subscribers. It reports over IPC
 * how many deliveries it has made, and at the end the per-delivery latencies measured against
 * the publish time the event carries (one machine, one clock).
 */
import { performance } from 'node:perf_hooks';
import { RedisBus } from '../src/bus/redis.js';
import { createLogger } from '../src/platform/logging.js';
import { SessionStreams } from '../src/stream/session-streams.js';

const [url, prefix, taskId, nRaw, burstRaw] = process.argv.slice(2);
const n = Number(nRaw);
const burst = Number(burstRaw);
const bus = new RedisBus(url as string, createLogger('silent'), prefix);
await bus.ready();
const streams = new SessionStreams(bus, createLogger('silent'));
const latencies: number[] = [];
let deliveries = 0;
const subs: { close(): void }[] = [];
for (let i = 0; i < n; i++) {
  subs.push(
    await streams.subscribe(
      taskId as string,
      (e) => {
        const sentAt = (e.data as { sent_at?: number }).sent_at;
        if (typeof sentAt === 'number') latencies.push(performance.timeOrigin + performance.now() - sentAt);
        deliveries++;
        if (deliveries % (burst * n) === 0) process.send?.({ deliveries });
      },
      { replay: false },
    ),
  );
}
process.send?.({ ready: true });
process.on('message', async (m: { done?: boolean }) => {
  if (!m.done) return;
  for (const s of subs) s.close();
  await bus.close();
  // Exit only once the (large) message is handed over, or the parent gets nothing.
  process.send?.({ deliveries, latencies }, undefined, {}, () => process.exit(0));
});
