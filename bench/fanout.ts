/**
 * bench:fanout: one live session's events to N subscribers, N = 1, 10, 100, 1000, over the
 * in-process bus and over Redis (REDIS_URL; the publisher and the subscribers on two
 * separate Redis connections, as two nodes would be). Each subscriber is what an SSE or
 * WebSocket audience gets: a SessionStreams subscription feeding its own Outbox, which
 * renders the SSE frame; the transport is a counter that always accepts (no sockets, so the
 * numbers are the stream's cost, not the kernel's). Events are sentences (three interims,
 * the final of ~100 characters, its translation), published in bursts of 10; the next burst
 * goes once every subscriber has the last one. Reported: events per second (published
 * events / elapsed) and the per-event delivery latency (publish to each subscriber's
 * outbox) p50 / p99. Everything shares this machine's cores: note the load average.
 * The "redis, 2 processes" rows put the subscribers in a second process (bench/fanout-node.ts),
 * as a realtime node publishing and an api node serving viewers would be: the cost of crossing
 * Redis between two instances, including serialization on both sides.
 *
 * Usage: npm run -s bench:fanout [-- --deliveries 200000]
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { InProcessBus } from '../src/bus/in-process.js';
import { RedisBus } from '../src/bus/redis.js';
import type { EventBus } from '../src/bus/types.js';
import { createLogger } from '../src/platform/logging.js';
import { isInterim, type SessionEventBody } from '../src/stream/events.js';
import { Outbox, SUBSCRIBER_POLICY } from '../src/stream/outbox.js';
import { SessionStreams } from '../src/stream/session-streams.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DELIVERIES = arg('deliveries', 200_000);
const BURST = 10;
const logger = createLogger('silent');

function sentence(sid: number): SessionEventBody[] {
  const text = `and so my fellow americans ask not what your country can do for you ${sid}`.padEnd(100, '.');
  const origin = (t: string, isFinal: boolean) => ({
    origin: { sid, language: 'en', text: t, is_final: isFinal, speaker_id: null, detected_language: null, start_time: '00:00', end_ms: 0 },
  });
  return [
    { event: 'result', data: origin(text.slice(0, 30), false) },
    { event: 'result', data: origin(text.slice(0, 60), false) },
    { event: 'result', data: origin(text.slice(0, 90), false) },
    { event: 'result', data: origin(text, true) },
    { event: 'translation', data: { sid, language: 'es', text: text.replace('and', 'y'), is_final: true } },
  ];
}

function frame(event: string, data: unknown, id: number): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function run(name: string, pubBus: EventBus, subBus: EventBus, n: number) {
  const publisherSide = new SessionStreams(pubBus, logger);
  const subscriberSide = new SessionStreams(subBus, logger);
  const taskId = randomUUID();
  const pub = await publisherSide.publisher(taskId, 1);
  const events = Math.max(100, Math.round(DELIVERIES / n / 5) * 5);
  const publishedAt = new Float64Array(events + 2);
  const latencies = new Float64Array(events * n);
  let deliveries = 0;
  let bytes = 0;
  const transport = {
    write(f: string) {
      bytes += f.length;
      return true;
    },
    onDrain() {},
  };
  const subs = [];
  for (let i = 0; i < n; i++) {
    const out = new Outbox(transport, SUBSCRIBER_POLICY, () => {});
    subs.push(
      await subscriberSide.subscribe(
        taskId,
        (e) => {
          if (deliveries < latencies.length) latencies[deliveries] = performance.now() - (publishedAt[e.seq] as number);
          deliveries++;
          out.offer(frame(e.event, e.data, e.seq), isInterim(e));
        },
        { replay: false },
      ),
    );
  }
  const t0 = performance.now();
  let published = 0;
  for (let sid = 0; published < events; sid++) {
    for (const body of sentence(sid)) {
      publishedAt[pub.lastSeq + 1] = performance.now();
      pub.publish(body);
      published++;
    }
    if (published % BURST === 0 || published >= events) {
      const want = published * n;
      while (deliveries < want) await new Promise((r) => setImmediate(r));
    }
  }
  const elapsed = (performance.now() - t0) / 1000;
  for (const s of subs) s.close();
  pub.close();
  const sorted = latencies.slice(0, Math.min(deliveries, latencies.length)).sort();
  const row = {
    bus: name,
    subscribers: n,
    events: published,
    'events/s': Math.round(published / elapsed),
    'deliveries/s': Math.round((published * n) / elapsed),
    'p50 ms': Number(percentile(sorted, 50).toFixed(3)),
    'p99 ms': Number(percentile(sorted, 99).toFixed(3)),
    'MB framed': Number((bytes / 1e6).toFixed(1)),
  };
  console.log(JSON.stringify(row));
  return row;
}

/** Publisher here, N subscribers in another process (bench/fanout-node.ts) over Redis. */
async function runTwoProcesses(url: string, n: number) {
  const prefix = `bench:${randomUUID()}:`;
  const taskId = randomUUID();
  const bus = new RedisBus(url, logger, prefix);
  await bus.ready();
  const pub = await new SessionStreams(bus, logger).publisher(taskId, 1);
  const child = fork(new URL('./fanout-node.ts', import.meta.url).pathname, [url, prefix, taskId, String(n), String(BURST)], {
    execArgv: ['--import', 'tsx'],
  });
  let delivered = 0;
  let final: { deliveries: number; latencies: number[] } | null = null;
  child.on('message', (m: { deliveries?: number; latencies?: number[] }) => {
    if (m.latencies) final = m as { deliveries: number; latencies: number[] };
    else if (typeof m.deliveries === 'number') delivered = m.deliveries;
  });
  await new Promise<void>((resolve) => child.on('message', (m: { ready?: boolean }) => m.ready && resolve()));
  const events = Math.max(100, Math.round(DELIVERIES / n / 5) * 5);
  const t0 = performance.now();
  let published = 0;
  for (let sid = 0; published < events; sid++) {
    for (const body of sentence(sid)) {
      pub.publish({ ...body, data: { ...body.data, sent_at: performance.timeOrigin + performance.now() } } as unknown as SessionEventBody);
      published++;
      if (published % BURST === 0) {
        const want = published * n;
        while (delivered < want) await new Promise((r) => setTimeout(r, 0));
      }
    }
  }
  const elapsed = (performance.now() - t0) / 1000;
  child.send({ done: true });
  await once(child, 'exit');
  pub.close();
  await bus.close();
  const sorted = Float64Array.from((final as { latencies: number[] } | null)?.latencies ?? []).sort();
  const row = {
    bus: 'redis, 2 processes',
    subscribers: n,
    events: published,
    'events/s': Math.round(published / elapsed),
    'deliveries/s': Math.round((published * n) / elapsed),
    'p50 ms': Number(percentile(sorted, 50).toFixed(3)),
    'p99 ms': Number(percentile(sorted, 99).toFixed(3)),
    'MB framed': Number.NaN,
  };
  console.log(JSON.stringify(row));
  return row;
}

async function main() {
  const rows = [];
  const levels = [1, 10, 100, 1000];
  const before = loadavg();
  const inProcess = new InProcessBus();
  for (const n of levels) rows.push(await run('in-process', inProcess, inProcess, n));
  await inProcess.close();
  const url = process.env.REDIS_URL;
  if (url) {
    const prefix = `bench:${randomUUID()}:`;
    const a = new RedisBus(url, logger, prefix);
    const b = new RedisBus(url, logger, prefix);
    await Promise.all([a.ready(), b.ready()]);
    for (const n of levels) rows.push(await run('redis', a, b, n));
    await Promise.all([a.close(), b.close()]);
    for (const n of levels) rows.push(await runTwoProcesses(url, n));
  } else {
    console.log('REDIS_URL not set: the Redis rows are skipped');
  }
  console.table(rows);
  const after = loadavg();
  console.log(
    `load average ${before.map((l) => l.toFixed(2)).join(' ')} before, ${after.map((l) => l.toFixed(2)).join(' ')} after; ${cpus().length} cores; node ${process.version}`,
  );
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
