/**
 * Crash suites: a real server process (`src/main.ts`) on SQLite or PostgreSQL, stopped at a
 * named point (PARLEY_TEST_PAUSE_AT, src/platform/crash-points.ts) and killed there with
 * SIGKILL, then started again on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, type Backend, createPgSchema, dropPgSchema } from '../support/app.js';
import { localServerEnv, type ServerProcess, startServer } from '../support/server.js';
import { until } from '../webhooks/receiver.js';

export interface CrashSite {
  base: string;
  env: Record<string, string>;
  dataDir: string;
  /** Starts the server; `pauseAt` stops it at that crash point. */
  start(pauseAt?: string, extra?: Record<string, string>): Promise<ServerProcess>;
  /** Kills every server started here and removes the data. */
  close(): Promise<void>;
}

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export async function crashSite(backend: Backend, extra: Record<string, string> = {}): Promise<CrashSite> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-crash-'));
  const schema = backend === 'postgres' ? await createPgSchema() : undefined;
  const { base, env } = await localServerEnv(dataDir, {
    PARLEY_WEBHOOK_ALLOW_PRIVATE: '1',
    PARLEY_JOB_LEASE_MS: '1500',
    PARLEY_WEBHOOK_RETRY_SCALE: '0.01',
    PARLEY_WS_RECOVER_AFTER_SECONDS: '1',
    PARLEY_STARTER_CREDIT: '500',
    // The server process works in the test's own schema (its search_path, set at connection).
    ...(schema ? { DATABASE_URL: withSearchPath(process.env.DATABASE_URL!, schema) } : {}),
    ...extra,
  });
  const servers: ServerProcess[] = [];
  return {
    base,
    env,
    dataDir,
    async start(pauseAt, more = {}) {
      const s = startServer({ ...env, ...more, ...(pauseAt ? { PARLEY_TEST_PAUSE_AT: pauseAt } : {}) }, 120_000);
      servers.push(s);
      await s.ready;
      return s;
    },
    async close() {
      for (const s of servers) {
        if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
        await s.exited;
      }
      if (schema) await dropPgSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until the server stopped at `point`, then kills it with SIGKILL. */
export async function killAt(server: ServerProcess, point: string, timeoutMs = 120_000): Promise<void> {
  await until(
    () => server.output().includes(`PARLEY_PAUSED ${point}`),
    timeoutMs,
    `the server to reach ${point}:\n${server.output().slice(-2000)}`,
  );
  server.child.kill('SIGKILL');
  await server.exited;
}

/** The first start's API key (its stdout may arrive just after the server answers). */
export async function startKey(server: ServerProcess): Promise<string> {
  await until(() => /svc_[A-Za-z0-9]{32}/.test(server.output()), 10_000, `the first-start key:\n${server.output().slice(-2000)}`);
  return /svc_[A-Za-z0-9]{32}/.exec(server.output())![0];
}

/** The account's usage rows (GET /me/usage). */
export async function usage(
  base: string,
  key: string,
): Promise<{ type: string; points: number; task_id: string | null; refunded: boolean }[]> {
  return (await api(base, 'GET', '/api/v1/me/usage', { key })).body.data;
}
