/**
 * bench:broadcast: N broadcast viewers (default 10,000) of one broadcast while the host sends
 * one final sentence a second (its origin caption and one translation), beside a bare
 * node:http SSE broadcaster measured in the same run with the same clients.
 *
 * Every server and every group of clients is a child process (bench/broadcast-parts.ts), so
 * a server's memory is its own and no process holds more sockets than its open-file limit
 * (20,000 here). Parley is the real app with one broadcast live; its finals are published on
 * the broadcast's viewer topic exactly as the host's node publishes them, and each viewer is a
 * real `GET /broadcast/{token}/text` SSE client. The clients parse each event and measure the
 * delay from publish (the sender's clock, in the event) to parsed. Memory per viewer: the
 * servers' RSS (and heap) after a GC, once all viewers are connected and the events ran, minus
 * the same before any viewer connected, over N.
 *
 *   npm run -s bench:broadcast [-- --viewers 10000 --seconds 20 --processes 1 --host-apart --baseline DIR]
 *
 * `--baseline DIR`: also measures the Parley of another checkout (e.g. the commit before a
 * change, `git archive <commit> | tar -x -C DIR` with node_modules linked), between the bare
 * broadcaster and this one, with the same clients: old and new side by side in one run.
 *
 * `--processes P`: P server processes of each kind, the viewers spread evenly over them. Parley's
 * share one database and the Redis bus and seats (REDIS_URL, default redis://127.0.0.1:6379/13),
 * as the viewer processes of one node do (docs/capacity.md); the first one publishes. The bare
 * broadcaster's each write the same events at the same time (no bus at all).
 *
 * `--host-apart` (with `--processes P`): Parley's publisher is a process of its own, the host's
 * node, holding no viewers; the viewers are on the P others, fed over Redis (docs/capacity.md's
 * three-node run: the host on one process, viewers on two). Memory per viewer counts the P.
 *
 * Targets (issue 30): Parley's p99 within 1.10x and p50 within 1.25x of the bare broadcaster's;
 * at most 12 KB of server memory per viewer; connected within 1.5x the bare time. Everything
 * shares this machine's cores: the load average is printed with the figures.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join as joinPath, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUCKET_MS,
  BUCKETS,
  type ClientCmd,
  type ClientMsg,
  runClients,
  type ServerCmd,
  type ServerMsg,
  serveBare,
  serveParley,
} from './broadcast-parts.js';

const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number) => Number(argOf(name) ?? fallback);
const VIEWERS = arg('viewers', Number(process.env.BENCH_VIEWERS ?? 10_000));
const SECONDS = arg('seconds', 20);
const PROCESSES = arg('processes', 1);
const HOST_APART = process.argv.includes('--host-apart');
const BASELINE = argOf('baseline');
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13';
/** Viewers connecting at once, per client process. */
const CONNECT_WIDTH = 100;
/** Viewers per client process (under the 20,000 open files a process may have here). */
const PER_CLIENT = 18_000;

/** A child process spoken to by messages: `ask` sends and waits for the answer of a kind. */
class Child<In extends { kind: string }, Out extends { kind: string }> {
  private readonly waiting: Array<(m: Out) => void> = [];
  readonly proc: ChildProcess;
  constructor(args: string[], script = fileURLToPath(import.meta.url)) {
    this.proc = fork(script, args, {
      // BENCH_CPU_PROF=DIR: every child writes a V8 CPU profile there (find the server's by its size).
      execArgv: [
        '--import',
        'tsx',
        '--expose-gc',
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (m: Out) => this.waiting.shift()?.(m));
  }
  next<K extends Out['kind']>(kind: K): Promise<Extract<Out, { kind: K }>> {
    return new Promise((resolve, reject) => {
      this.waiting.push((m) =>
        m.kind === kind
          ? resolve(m as Extract<Out, { kind: K }>)
          : reject(new Error(`expected ${kind}, got ${JSON.stringify(m).slice(0, 200)}`)),
      );
    });
  }
  ask<K extends Out['kind']>(m: In, kind: K): Promise<Extract<Out, { kind: K }>> {
    const answer = this.next(kind);
    this.proc.send(m);
    return answer;
  }
  async stop(m: In): Promise<void> {
    this.proc.send(m);
    await new Promise((r) => this.proc.once('exit', r));
  }
}

function pct(histogram: number[], total: number, p: number): number {
  const want = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= want) return (i + 0.5) * BUCKET_MS;
  }
  return Number.NaN;
}

async function measure(which: 'parley' | 'bare', checkout?: string) {
  // --host-apart: one more Parley process, the host's node, that publishes and holds no viewers.
  const hostApart = HOST_APART && which === 'parley';
  const serverArgs = ['--serve', which, '--viewers', String(VIEWERS), '--processes', String(PROCESSES + (hostApart ? 1 : 0))];
  // The servers of a baseline run from their own checkout (its bench/broadcast.ts serves its own app).
  const script = checkout ? joinPath(resolvePath(checkout), 'bench', 'broadcast.ts') : undefined;
  const first = new Child<ServerCmd, ServerMsg>(serverArgs, script);
  const ready = await first.next('ready');
  const servers = [first];
  const urls = hostApart ? [] : [ready.url];
  for (let i = hostApart ? 0 : 1; i < PROCESSES; i++) {
    const extra = which === 'parley' ? ['--data', ready.dataDir ?? '', '--token', ready.token ?? ''] : [];
    const s = new Child<ServerCmd, ServerMsg>([...serverArgs, ...extra], script);
    urls.push((await s.next('ready')).url);
    servers.push(s);
  }
  const viewerServers = hostApart ? servers.slice(1) : servers;
  const memory = async () => {
    const all = await Promise.all(viewerServers.map((s) => s.ask({ kind: 'memory' }, 'memory')));
    return { rss: all.reduce((n, m) => n + m.rss, 0), heap: all.reduce((n, m) => n + m.heap, 0) };
  };
  const before = await memory();
  // A multiple of the server processes, so each server gets the same share of viewers.
  const groups = PROCESSES * Math.max(1, Math.ceil(VIEWERS / PROCESSES / PER_CLIENT));
  const clients = Array.from({ length: groups }, (_, g) => {
    const count = Math.floor(VIEWERS / groups) + (g < VIEWERS % groups ? 1 : 0);
    return new Child<ClientCmd, ClientMsg>(['--clients', urls[g % PROCESSES] as string, String(count)]);
  });
  const connected = await Promise.all(clients.map((c) => c.next('connected')));
  const connectSeconds = Math.max(...connected.map((c) => c.seconds));
  await Promise.all(servers.map((s) => s.ask({ kind: 'run', seconds: SECONDS }, 'sent')));
  const expected = SECONDS * 2;
  // The last event's deliveries: until every viewer has them (or 10 s).
  for (let waited = 0; waited < 10_000; waited += 500) {
    const r = await Promise.all(clients.map((c) => c.ask({ kind: 'result', expected, histogram: false }, 'result')));
    if (r.reduce((n, x) => n + x.complete, 0) >= VIEWERS) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  const after = await memory();
  const results = await Promise.all(clients.map((c) => c.ask({ kind: 'result', expected, histogram: true }, 'result')));
  await Promise.all(clients.map((c) => c.stop({ kind: 'stop' })));
  await Promise.all(servers.map((s) => s.stop({ kind: 'stop' })));
  const histogram = new Array<number>(BUCKETS).fill(0);
  for (const r of results) {
    for (let i = 0; i < r.histogram.length; i++) histogram[i] = (histogram[i] ?? 0) + (r.histogram[i] ?? 0);
  }
  const delivered = results.reduce((n, r) => n + r.received, 0);
  return {
    which: checkout ? 'old' : which,
    connectSeconds,
    delivered,
    expected: expected * VIEWERS,
    p50: pct(histogram, delivered, 50),
    p99: pct(histogram, delivered, 99),
    rssPerViewer: (after.rss - before.rss) / VIEWERS,
    heapPerViewer: (after.heap - before.heap) / VIEWERS,
  };
}

async function child(): Promise<boolean> {
  const send = (m: ServerMsg | ClientMsg) => process.send?.(m);
  const serve = argOf('serve');
  if (serve) {
    const handle =
      serve === 'parley'
        ? await serveParley(
            { viewers: VIEWERS, processes: PROCESSES, redisUrl: REDIS_URL, dataDir: argOf('data'), token: argOf('token') },
            send,
          )
        : await serveBare(send);
    process.on('message', (m: ServerCmd) => void handle(m));
    return true;
  }
  const at = process.argv.indexOf('--clients');
  if (at > 0) {
    const handle = await runClients(process.argv[at + 1] as string, Number(process.argv[at + 2]), CONNECT_WIDTH, send);
    process.on('message', (m: ClientCmd) => handle(m));
    return true;
  }
  return false;
}

async function main(): Promise<void> {
  if (await child()) return;
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `bench:broadcast: ${VIEWERS} viewers on ${PROCESSES} server process(es)${HOST_APART ? " (Parley's host on one more)" : ''}, one final (origin + one translation) a second for ${SECONDS} s`,
  );
  console.log(`  load average before: ${load()} (2 cores shared with other work: timings on a busy machine mean little)`);
  const bare = await measure('bare');
  const old = BASELINE ? await measure('parley', BASELINE) : null;
  const parley = await measure('parley');
  const kb = (n: number) => (n / 1024).toFixed(1);
  if (old) console.log(`  old = the Parley of ${BASELINE}`);
  for (const r of old ? [bare, old, parley] : [bare, parley]) {
    console.log(
      `  ${r.which.padEnd(6)}  delivered ${r.delivered}/${r.expected}  delay p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
        `memory per viewer: RSS ${kb(r.rssPerViewer)} KB, heap ${kb(r.heapPerViewer)} KB  (connected in ${r.connectSeconds.toFixed(1)} s)`,
    );
  }
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  if (old) {
    console.log(
      `  old/bare: p99 ${(old.p99 / bare.p99).toFixed(2)}, p50 ${(old.p50 / bare.p50).toFixed(2)}, connect ${(old.connectSeconds / bare.connectSeconds).toFixed(2)}`,
    );
  }
  const p99 = parley.p99 / bare.p99;
  const p50 = parley.p50 / bare.p50;
  const connect = parley.connectSeconds / bare.connectSeconds;
  console.log(`  p99 ratio parley/bare ${p99.toFixed(2)} (target <= 1.10): ${verdict(p99 <= 1.1)}`);
  console.log(`  p50 ratio parley/bare ${p50.toFixed(2)} (target <= 1.25): ${verdict(p50 <= 1.25)}`);
  console.log(`  connect time ratio ${connect.toFixed(2)} (target <= 1.5): ${verdict(connect <= 1.5)}`);
  console.log(`  parley RSS per viewer ${kb(parley.rssPerViewer)} KB (target <= 12 KB): ${verdict(parley.rssPerViewer <= 12 * 1024)}`);
  console.log(`  every event delivered: ${verdict(parley.delivered === parley.expected)}; p99 under 1 s: ${verdict(parley.p99 < 1000)}`);
  console.log(`  load average after: ${load()}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
