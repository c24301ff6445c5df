/**
 * One node, several processes: `npm run -s start:node -- --processes N` starts N Parley
 * processes (the server bundle dist/main.mjs that `start:node` builds from src/main.ts first,
 * scripts/build-server.mjs; the roles PARLEY_ROLES names) sharing one listening port (node:cluster;
 * the kernel's connections handed out in turn), so a node uses every core for viewer streams
 * and every process has its own open-file limit (docs/capacity.md). N defaults to the cores.
 *
 * The processes reach each other only through the bus and the seats: N > 1 needs REDIS_URL
 * (refused at start, exit status 2, without it; the embedded bus reaches no other process).
 * The first process starts alone (a first start creates the first account and prints its key
 * once), the others once it listens. A process that dies is started again; SIGTERM and SIGINT
 * are passed to every process, each ends gracefully (src/platform/shutdown.ts), then the node.
 */
import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/** A process that dies sooner than this after its start is not restarted at once (a crash loop). */
const RESTART_DELAY_MS = 1_000;

/** What each process runs: the server bundle (scripts/build-server.mjs). */
const SERVER_BUNDLE = fileURLToPath(new URL('../dist/main.mjs', import.meta.url));

export function processesOf(argv: string[], cores = availableParallelism()): number | string {
  const at = argv.indexOf('--processes');
  if (at < 0) return cores;
  const n = Number(argv[at + 1]);
  return Number.isInteger(n) && n >= 1 && n <= 256
    ? n
    : `--processes must be a whole number from 1 to 256 (got ${argv[at + 1] ?? 'nothing'})`;
}

function fail(message: string): never {
  process.stderr.write(`${message}\nSee docs/capacity.md.\n`);
  process.exit(2);
}

function primary(): void {
  const n = processesOf(process.argv);
  if (typeof n === 'string') fail(n);
  if (n > 1 && !process.env.REDIS_URL) {
    fail(
      `--processes ${n}: the processes of a node share viewers, seats and live sessions over Redis. ` +
        'Set REDIS_URL to a Redis server they share (or start one process).',
    );
  }
  if (!existsSync(SERVER_BUNDLE)) fail(`${SERVER_BUNDLE} is missing: npm run build:server builds it (npm run start:node does).`);
  cluster.setupPrimary({ exec: SERVER_BUNDLE, execArgv: ['--enable-source-maps'] });
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const start = () => {
    const w = cluster.fork();
    startedAt.set(w, Date.now());
    return w;
  };
  const first = start();
  first.once('listening', () => {
    for (let i = 1; i < n; i++) start();
  });
  cluster.on('exit', (w, code, signal) => {
    const lived = Date.now() - (startedAt.get(w) ?? 0);
    startedAt.delete(w);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    // Exit status 2 is a configuration problem (src/main.ts): every other process would refuse it too.
    if (code === 2) {
      process.exitCode = 2;
      stop('SIGTERM');
      return;
    }
    process.stderr.write(`parley node: process ${w.process.pid} ended (${signal ?? `exit ${code}`}); starting another\n`);
    setTimeout(start, lived < RESTART_DELAY_MS ? RESTART_DELAY_MS : 0).unref();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit();
    for (const w of workers) w?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (cluster.isPrimary && process.argv[1] === fileURLToPath(import.meta.url)) primary();
