/**
 * bench:broadcast: N broadcast viewers (default 10,000) on one Parley instance while the host
 * sends one final sentence a second (its origin caption and one translation), beside a bare
 * node:http SSE broadcaster measured in the same run with the same clients.
 *
 * Each server runs in its own child process (so its memory is its own): Parley is the real
 * app (startTestApp: real database, real HTTP server, in-process bus), with one broadcast
 * live; its finals are published on the broadcast's viewer topic exactly as the host's node
 * publishes them (the modules' `host.publish`), and each viewer is a real
 * `GET /broadcast/{token}/text` SSE client. The bare broadcaster keeps the open responses in a
 * Set and writes each event to every one of them. The clients (this process, raw node:http)
 * parse each event and measure the delay from publish (the sender's clock, in the event) to
 * parsed. Memory per viewer: the server's RSS (and heap) after a GC, once all viewers are
 * connected and the events ran, minus the same before any viewer connected, over N.
 *
 *   npm run -s bench:broadcast [-- --viewers 10000 --seconds 20]
 *
 * Targets (issue 12): Parley's p99 within 1.25x of the bare broadcaster's; at most 25 KB of
 * server memory per viewer. Everything shares this machine's cores: the load average is
 * printed with the figures.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const VIEWERS = arg('viewers', Number(process.env.BENCH_VIEWERS ?? 10_000));
const SECONDS = arg('seconds', 20);
/** Viewers connecting at once. */
const CONNECT_WIDTH = 100;
const now = () => performance.timeOrigin + performance.now();

type ToParent = { kind: 'ready'; url: string } | { kind: 'memory'; rss: number; heap: number } | { kind: 'sent'; count: number };
type ToChild = { kind: 'memory' } | { kind: 'run'; seconds: number } | { kind: 'stop' };

// ---------------------------------------------------------------- servers (child processes)

function sentence(sid: number) {
  const at = now().toFixed(3);
  const text = `${at} and so my fellow americans ask not what your country can do for you`;
  return {
    origin: { sid, text, speaker_label: null, start_time: '00:00', is_final: true },
    translation: { sid, language: 'es', text, speaker_id: null, speaker_label: null, is_final: true },
  };
}

async function memory(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

async function serveParley(send: (m: ToParent) => void): Promise<(m: ToChild) => Promise<void>> {
  const { startTestApp } = await import('../test/support/app.js');
  const t = await startTestApp({
    backend: 'sqlite',
    contract: false, // as production runs: no test-only schema check on every SSE event (it validates each one)
    // Every bench viewer comes from this one address: the per-source seat share is lifted.
    env: { PARLEY_BROADCAST_VIEWER_LIMIT: String(Math.max(VIEWERS, 1)), PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100' },
  });
  const { BroadcastStore } = await import('../src/broadcasts/store.js');
  const { viewerTopic, VIEWER_REPLAY_RETAIN } = await import('../src/broadcasts/viewer-events.js');
  const k = await t.app.deps.keys.createKey({ name: 'bench broadcast' });
  const created = await fetch(`${t.url}/api/v1/broadcasts`, {
    method: 'POST',
    headers: { 'x-api-key': k.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ transcription_languages: ['en'], translation_languages: ['es'], max_viewers: Math.max(VIEWERS, 1) }),
  });
  const b = ((await created.json()) as { data: { id: string; token: string } }).data;
  // The broadcast is live as after the host's start (what the host's node writes).
  const store = new BroadcastStore(t.app.deps.database);
  const at = new Date();
  await store.beginHost(b.id, {
    hostKeyId: k.key_id,
    phase: 'live',
    now: at,
    session: randomUUID(),
    leaseUntil: new Date(at.getTime() + 3_600_000),
  });
  // What the host's node does for each viewer event (module.ts: retained unless interim or audio).
  const publish = (event: string, data: Record<string, unknown>) =>
    t.app.deps.bus.publish(viewerTopic(b.id), { event, data }, { retain: VIEWER_REPLAY_RETAIN });
  send({ kind: 'ready', url: `${t.url}/broadcast/${b.token}/text` });
  return async (m) => {
    if (m.kind === 'memory') send({ kind: 'memory', ...(await memory()) });
    else if (m.kind === 'run') {
      for (let sid = 1; sid <= m.seconds; sid++) {
        const s = sentence(sid);
        await publish('origin', s.origin);
        await publish('translation', s.translation);
        await new Promise((r) => setTimeout(r, 1000));
      }
      send({ kind: 'sent', count: m.seconds * 2 });
    } else {
      await t.close();
      process.exit(0);
    }
  };
}

async function serveBare(send: (m: ToParent) => void): Promise<(m: ToChild) => Promise<void>> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`event: connected\ndata: {}\n\n`);
    open.add(res);
    req.on('close', () => open.delete(res));
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const write = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of open) res.write(frame);
  };
  const { port } = server.address() as { port: number };
  send({ kind: 'ready', url: `http://127.0.0.1:${port}/sse` });
  return async (m) => {
    if (m.kind === 'memory') send({ kind: 'memory', ...(await memory()) });
    else if (m.kind === 'run') {
      for (let sid = 1; sid <= m.seconds; sid++) {
        const s = sentence(sid);
        write('origin', s.origin);
        write('translation', s.translation);
        await new Promise((r) => setTimeout(r, 1000));
      }
      send({ kind: 'sent', count: m.seconds * 2 });
    } else {
      for (const res of open) res.destroy();
      server.close();
      process.exit(0);
    }
  };
}

// ---------------------------------------------------------------- clients (this process)

interface Viewer {
  req: http.ClientRequest;
  received: number;
}

function openViewer(url: string, delays: number[]): Promise<Viewer> {
  return new Promise((resolve, reject) => {
    const v: Viewer = { req: null as never, received: 0 };
    v.req = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`viewer: HTTP ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      let connected = false;
      res.on('data', (chunk: string) => {
        const at = now();
        buf += chunk;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (!connected && block.includes('event: connected')) {
            connected = true;
            resolve(v);
          }
          if (!block.includes('event: origin') && !block.includes('event: translation')) continue;
          const m = /"text":"(\d+\.\d+) /.exec(block);
          if (m) {
            delays.push(at - Number(m[1]));
            v.received++;
          }
        }
      });
      res.on('error', () => {});
    });
    v.req.on('error', reject);
  });
}

function pct(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function measure(which: 'parley' | 'bare') {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', which, '--viewers', String(VIEWERS)], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: Array<(m: ToParent) => void> = [];
  child.on('message', (m: ToParent) => waiting.shift()?.(m));
  const next = <K extends ToParent['kind']>(kind: K) =>
    new Promise<Extract<ToParent, { kind: K }>>((resolve, reject) => {
      waiting.push((m) =>
        m.kind === kind ? resolve(m as Extract<ToParent, { kind: K }>) : reject(new Error(`expected ${kind}, got ${m.kind}`)),
      );
    });
  const ask = <K extends ToParent['kind']>(m: ToChild, kind: K) => {
    const answer = next(kind);
    child.send(m);
    return answer;
  };
  const { url } = await next('ready');
  const before = await ask({ kind: 'memory' }, 'memory');
  const delays: number[] = [];
  const viewers: Viewer[] = [];
  const connectStart = now();
  for (let i = 0; i < VIEWERS; i += CONNECT_WIDTH) {
    const width = Math.min(CONNECT_WIDTH, VIEWERS - i);
    viewers.push(...(await Promise.all(Array.from({ length: width }, () => openViewer(url, delays)))));
  }
  const connectSeconds = (now() - connectStart) / 1000;
  await ask({ kind: 'run', seconds: SECONDS }, 'sent');
  // The last event's deliveries: until every viewer has them (or 10 s).
  const expected = SECONDS * 2;
  for (let waited = 0; waited < 10_000 && viewers.some((v) => v.received < expected); waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const after = await ask({ kind: 'memory' }, 'memory');
  const delivered = viewers.reduce((n, v) => n + v.received, 0);
  for (const v of viewers) v.req.destroy();
  child.send({ kind: 'stop' } satisfies ToChild);
  await new Promise((r) => child.once('exit', r));
  const sorted = Float64Array.from(delays).sort();
  return {
    which,
    connectSeconds,
    delivered,
    expected: expected * VIEWERS,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    rssPerViewer: (after.rss - before.rss) / VIEWERS,
    heapPerViewer: (after.heap - before.heap) / VIEWERS,
  };
}

async function main(): Promise<void> {
  const serveAt = process.argv.indexOf('--serve');
  if (serveAt > 0) {
    const send = (m: ToParent) => process.send?.(m);
    const handle = process.argv[serveAt + 1] === 'parley' ? await serveParley(send) : await serveBare(send);
    process.on('message', (m: ToChild) => void handle(m));
    return;
  }
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(`bench:broadcast: ${VIEWERS} viewers, one final (origin + one translation) a second for ${SECONDS} s`);
  console.log(`  load average before: ${load()} (2 cores shared with other work: timings on a busy machine mean little)`);
  const bare = await measure('bare');
  const parley = await measure('parley');
  const kb = (n: number) => (n / 1024).toFixed(1);
  for (const r of [bare, parley]) {
    console.log(
      `  ${r.which.padEnd(6)}  delivered ${r.delivered}/${r.expected}  delay p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
        `memory per viewer: RSS ${kb(r.rssPerViewer)} KB, heap ${kb(r.heapPerViewer)} KB  (connected in ${r.connectSeconds.toFixed(1)} s)`,
    );
  }
  const ratio = parley.p99 / bare.p99;
  console.log(`  p99 ratio parley/bare ${ratio.toFixed(2)} (target <= 1.25): ${ratio <= 1.25 ? 'met' : 'MISSED'}`);
  console.log(
    `  parley RSS per viewer ${kb(parley.rssPerViewer)} KB (target <= 25 KB): ${parley.rssPerViewer <= 25 * 1024 ? 'met' : 'MISSED'}`,
  );
  console.log(`  load average after: ${load()}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
