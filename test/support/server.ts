/**
 * The server as a real child process (`node dist/main.mjs`, what `npm start` runs: the bundle
 * of src/main.ts that test/support/global-setup.ts builds before every test run), for tests and
 * benchmarks that need a real kill or a separate process's memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Node's arguments for one of the bundles (scripts/build-server.mjs) as `npm start` / `npm run
 * <name>` run it, stack traces mapped to the TypeScript sources. Run with `cwd: ROOT`.
 */
export const commandArgs = (name: 'main' | 'admin' | 'engines' | 'models', args: string[] = []): string[] => [
  '--enable-source-maps',
  `dist/${name}.mjs`,
  ...args,
];

/** How a test starts a server process: the bundle `npm start` runs. */
export const SERVER_ARGS = commandArgs('main');

/**
 * Refuses to start a bundle older than the sources (a bench run straight with tsx after an
 * edit would measure the old code): `npm run build:server` builds it; test runs always do.
 */
function checkBundleIsFresh(): void {
  const bundle = join(ROOT, 'dist', 'main.mjs');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build:server`);
  const built = statSync(bundle).mtimeMs;
  const newer = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).find(
    (f) => f.endsWith('.ts') && statSync(join(ROOT, 'src', f)).mtimeMs > built,
  );
  if (newer) throw new Error(`dist/main.mjs is older than src/${newer}: run npm run build:server`);
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited (at once if it already has). */
  exited: Promise<void>;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves when the server answers on env.PORT (rejects with its output after `readyMs`, default 60 s, or on exit). */
  ready: Promise<void>;
}

export function startServer(env: Record<string, string>, readyMs = 60_000): ServerProcess {
  checkBundleIsFresh();
  let out = '';
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  // Ready when it answers (whatever its log level): GET /api/v1/version on its port.
  const url = `http://${env.HOST ?? '127.0.0.1'}:${env.PORT}/api/v1/version`;
  let exited: number | null | undefined;
  // Listened for from the start, so a wait that begins after the exit still resolves.
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const ready = (async () => {
    const deadline = Date.now() + readyMs;
    for (;;) {
      if (exited !== undefined) throw new Error(`server exited with ${exited}:\n${out}`);
      if (Date.now() > deadline)
        throw new Error(`server (${env.PARLEY_ROLES ?? 'all roles'}) did not start in ${readyMs / 1000} s:\n${out}`);
      // Any answer means it listens (it listens only once built): a process without the api
      // role answers this path 404.
      const ok = await fetch(url).then(
        (r) => r.ok || r.status === 404,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  ready.catch(() => {});
  return { child, exited: exitedPromise, output: () => out, ready };
}

/** The environment of a server on a free local port, SQLite in `dataDir`, no Redis. */
export async function localServerEnv(dataDir: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    PARLEY_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    REDIS_URL: '',
    ...extra,
  };
  return { port, base: `http://127.0.0.1:${port}`, env };
}

/** The API key a first start printed (throws with the server's output when there is none). */
export function firstStartKey(s: ServerProcess): string {
  const key = /svc_[A-Za-z0-9]{32}/.exec(s.output())?.[0];
  if (!key) throw new Error(`no first-start key printed:\n${s.output()}`);
  return key;
}

/** Resident memory of a process in bytes (Linux /proc). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/**
 * Proportional set size: resident memory with each shared page counted once across its
 * mappings. RSS counts a file page once per mapping: PocketSphinx maps its model files
 * (-mmap), so each decoder adds ~4.7 MB of RSS for pages that are in memory once.
 */
export async function pssBytes(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  return kb * 1024;
}

export interface FirstStartServer {
  server: ServerProcess;
  base: string;
  /** The key the first start printed. */
  key: string;
  /** SIGTERM, wait for the exit, remove the data folder. */
  stop(): Promise<void>;
}

/**
 * A server as a newcomer starts it: a real process on a free port (not 8080), an empty SQLite
 * data folder, and the key its first start printed.
 */
export async function startFirstStartServer(extra: Record<string, string> = {}): Promise<FirstStartServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-first-start-'));
  const { base, env } = await localServerEnv(dataDir, extra);
  const server = startServer(env);
  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await server.ready;
    return { server, base, key: firstStartKey(server), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
