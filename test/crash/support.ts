/**
 * Crash suites: a real server process (`src/main.ts`) on SQLite or PostgreSQL, stopped at a
 * named point (PARLEY_TEST_PAUSE_AT, src/platform/crash-points.ts) and killed there with
 * SIGKILL, then started again on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { api, type Backend, createPgSchema, dropPgSchema } from '../support/app.js';
import { localServerEnv, type ServerProcess, startServer } from '../support/server.js';
import { until } from '../support/until.js';

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

// biome-ignore lint/suspicious/noExplicitAny: messages are read freely
export type Msg = { type: string; data: any };

/** A /ws client of a crash-site server, collecting every message; it tolerates the server being killed under it. */
export async function liveClient(base: string, key: string) {
  const t = (await api(base, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, [`ticket.${t}`]);
  const messages: Msg[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as Msg));
  ws.on('error', () => {}); // the server is killed under it
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (data: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'voice-translation', data }));
  return { ws, messages, send };
}

/**
 * Sends 16 kHz s16le PCM as binary frames of 300 ms every 100 ms: three times real time, under
 * the connection's audio rate limit (four times real time, src/realtime/limits.ts).
 */
export async function sendPcmFrames(ws: WebSocket, pcm: Buffer): Promise<void> {
  for (let i = 0; i < pcm.length; i += 9600) {
    ws.send(pcm.subarray(i, i + 9600));
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the task has ended (completed or failed) after a restart, and returns it as GET /tasks/:id shows it. */
export async function endedTask(base: string, key: string, taskId: string, timeoutMs: number) {
  const task = async () => (await api(base, 'GET', `/api/v1/tasks/${taskId}`, { key })).body.data;
  await until(async () => ['completed', 'failed'].includes((await task()).processing_status), timeoutMs, 'the recovered task to end');
  return task();
}
