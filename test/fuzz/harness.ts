/**
 * One fuzz run against a real server process: the data folder is seeded in-process (a funded
 * key, finished tasks with sentences, a task still processing), the server starts as a child
 * process (`node dist/main.mjs`, the bundle `npm start` runs) on it, the fuzzer walks the served OpenAPI
 * document and the WebSocket actions, and the report lists every 5xx, hang and crash, and
 * the error lines the server logged meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from '../support/app.js';
import { fundedAccount, seedTask } from '../support/seeded-tasks.js';
import { localServerEnv, type ServerProcess, startServer } from '../support/server.js';
import { Prng } from './prng.js';
import { type Finding, type Operation, operationsOf, type Resources, requestSize, restCase, send } from './rest.js';
import { brief } from './values.js';
import { fuzzWebSocket } from './ws.js';

export interface FuzzOptions {
  seed: number;
  /** REST requests to send (every operation at least once when this is at least their number). */
  restCases: number;
  /** WebSocket frames to send. */
  wsCases: number;
  /** An answer must come within this long (default 5 s). */
  deadlineMs?: number;
  /** Extra server environment. */
  env?: Record<string, string>;
  log?: (line: string) => void;
  /** Log every case of the operations whose "METHOD path" contains this. */
  trace?: string;
}

export interface FuzzReport {
  seed: number;
  operations: number;
  restSent: number;
  wsSent: number;
  statuses: Record<string, number>;
  /** "METHOD path" -> status (or hang/closed) -> count: shows which operations the input reached. */
  byOperation: Record<string, Record<string, number>>;
  /** WebSocket answers by event or `error <code>` / `close <code>`. */
  wsAnswers: Record<string, number>;
  findings: Finding[];
  crashed: boolean;
  /** Lines the server logged at error level (an unhandled error behind a 4xx is still a fault). */
  errorLogs: string[];
  seconds: number;
}

async function seed(dataDir: string): Promise<{ key: string; taskIds: string[] }> {
  const t = await startTestApp({ reuse: { dataDir } });
  try {
    const a = await fundedAccount(t, 500, 'fuzz');
    const taskIds = [
      await seedTask(t, a, { es: { 1: 'La casa es grande.', 2: 'Mi hermano come una manzana.', 3: 'Vivimos en un pueblo pequeño.' } }),
      await seedTask(t, a),
      await seedTask(t, a, { type: 'conversation' }),
      await seedTask(t, a, { status: 'processing' }),
      await seedTask(t, a),
    ];
    return { key: a.key, taskIds };
  } finally {
    await t.app.close();
  }
}

async function json(base: string, path: string, key: string, init: RequestInit = {}): Promise<unknown> {
  const r = await fetch(base + path, {
    ...init,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return r.ok ? ((await r.json()) as { data: unknown }).data : null;
}

async function resources(base: string, key: string, taskIds: string[]): Promise<Resources> {
  const values: Record<string, string[]> = { taskId: taskIds, sid: ['1', '2', '3'] };
  const templates = (await json(base, '/api/v1/summary-templates?category=all', key)) as
    | { slug?: string }[]
    | { templates?: { slug: string }[] }
    | null;
  const list = Array.isArray(templates) ? templates : (templates?.templates ?? []);
  values.slug = list
    .map((t) => t.slug ?? '')
    .filter(Boolean)
    .slice(0, 3);
  const voices = (await json(base, '/api/v1/tts/voices?language=en', key)) as { voices?: { name?: string; voice_name?: string }[] } | null;
  values.voiceName = (voices?.voices ?? [])
    .map((v) => v.name ?? v.voice_name ?? '')
    .filter(Boolean)
    .slice(0, 2);
  const b = (await json(base, '/api/v1/broadcasts', key, {
    method: 'POST',
    body: JSON.stringify({ transcription_languages: ['en-US'], translation_languages: ['es'] }),
  })) as { id?: string; broadcast_id?: string; token?: string; share_token?: string } | null;
  values.id = [b?.id ?? b?.broadcast_id ?? ''].filter(Boolean);
  values.token = [b?.token ?? b?.share_token ?? ''].filter(Boolean);
  return { key, values };
}

/** Operations that remove what later cases need (tasks, broadcasts): scheduled last. */
const destroys = (op: Operation) => op.method === 'DELETE' || /force-fail|revoke/.test(op.path);

/**
 * Cases round-robin over the operations, each round in a seeded order, so every operation is
 * called once `n` reaches their number; the destructive ones take their share at the end.
 */
function schedule(ops: Operation[], n: number, prng: Prng): Operation[] {
  const rounds = (list: Operation[], count: number) => {
    const out: Operation[] = [];
    while (out.length < count && list.length) {
      const round = [...list];
      for (let i = round.length - 1; i > 0; i--) {
        const j = prng.int(0, i);
        [round[i], round[j]] = [round[j]!, round[i]!];
      }
      out.push(...round);
    }
    return out.slice(0, count);
  };
  const kept = ops.filter((op) => !destroys(op));
  const last = ops.filter(destroys);
  const lastCount = Math.max(Math.min(n, last.length), Math.round((n * last.length) / ops.length));
  return [...rounds(kept, n - lastCount), ...rounds(last, lastCount)];
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const deadlineMs = o.deadlineMs ?? 5000;
  const log = o.log ?? (() => {});
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-fuzz-'));
  let server: ServerProcess | null = null;
  const findings: Finding[] = [];
  const statuses: Record<string, number> = {};
  const byOperation: Record<string, Record<string, number>> = {};
  let restSent = 0;
  let wsSent = 0;
  let wsAnswers: Record<string, number> = {};
  try {
    const seeded = await seed(dataDir);
    const { base, env } = await localServerEnv(dataDir, {
      LOG_LEVEL: 'error',
      PARLEY_WEBHOOK_ALLOW_PRIVATE: '1',
      // Connections the fuzzer drops leave their recordings for the grace period: keep decoders free.
      PARLEY_WS_DISCONNECT_GRACE_SECONDS: '1',
      ...(o.env ?? {}),
    });
    server = startServer(env, 120_000);
    await server.ready;
    const proc = server;
    const alive = () => proc.child.exitCode === null && proc.child.signalCode === null;
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Record<string, unknown>;
    const ops = operationsOf(doc);
    const res = await resources(base, seeded.key, seeded.taskIds);
    log(
      `fuzz seed ${o.seed}: ${ops.length} operations, resources ${JSON.stringify(Object.fromEntries(Object.entries(res.values).map(([k, v]) => [k, v.length])))}`,
    );
    const prng = new Prng(o.seed);
    const host = '127.0.0.1';
    const port = Number(env.PORT);
    for (const op of schedule(ops, o.restCases, prng)) {
      if (!alive()) break;
      const { req, what } = restCase(op, prng, res);
      const out = await send(host, port, req, deadlineMs);
      const where = `${op.method} ${op.path}`;
      const index = restSent++;
      const statusKey = out.status ? String(out.status) : out.kind;
      statuses[statusKey] = (statuses[statusKey] ?? 0) + 1;
      const perOp = byOperation[where] ?? {};
      byOperation[where] = perOp;
      perOp[statusKey] = (perOp[statusKey] ?? 0) + 1;
      const detail = `${req.method} ${brief(req.target, 200)} -> ${out.kind} ${out.status ?? out.error ?? ''} ${brief(out.head ?? '', 600)}`;
      if (o.trace && where.includes(o.trace))
        log(`#${index} ${where} [${what}] -> ${out.status ?? out.kind} ${brief((out.head ?? '').split('\r\n\r\n')[1] ?? '', 300)}`);
      if (out.status !== undefined && out.status >= 500) findings.push({ kind: '5xx', where, what, detail, seed: o.seed, index });
      else if (out.kind === 'hang') findings.push({ kind: 'hang', where, what, detail, seed: o.seed, index });
      // A well-formed, complete request must get an answer before the connection closes.
      else if ((out.kind === 'closed' || out.kind === 'error') && !req.truncated && !req.malformed && requestSize(req) < 16_000) {
        findings.push({ kind: 'closed', where, what, detail, seed: o.seed, index });
      }
      if (restSent % 100 === 0) log(`  rest ${restSent}/${o.restCases} (${findings.length} findings)`);
    }
    if (o.wsCases > 0 && alive()) {
      const wsPrng = new Prng(o.seed ^ 0x5eed);
      const ws = await fuzzWebSocket({
        url: `${base.replace('http', 'ws')}/ws`,
        prng: wsPrng,
        cases: o.wsCases,
        deadlineMs,
        alive,
        ticket: async () => {
          const r = await fetch(`${base}/api/v1/auth/ticket`, { method: 'POST', headers: { 'x-api-key': seeded.key } });
          const body = await r.text();
          if (!r.ok) throw new Error(`no ticket for the WebSocket fuzz: ${r.status} ${body}`);
          return (JSON.parse(body) as { data: { ticket: string } }).data.ticket;
        },
        onFinding: (f) => findings.push({ ...f, seed: o.seed }),
      });
      wsSent = ws.sent;
      wsAnswers = ws.answers;
      log(`  ws ${wsSent}/${o.wsCases}`);
    }
    const crashed =
      !alive() ||
      !(await fetch(`${base}/api/v1/version`).then(
        (r) => r.ok,
        () => false,
      ));
    if (crashed)
      findings.push({
        kind: 'crash',
        where: 'server',
        what: 'process exited or stopped answering',
        detail: server.output().slice(-3000),
        seed: o.seed,
        index: restSent + wsSent,
      });
    const errorLogs = server
      .output()
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l))
      .map((l) => l.slice(0, 1500));
    return {
      seed: o.seed,
      operations: ops.length,
      restSent,
      wsSent,
      statuses,
      byOperation,
      wsAnswers,
      findings,
      crashed,
      errorLogs,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    if (server) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A readable report. */
export function formatReport(r: FuzzReport): string {
  const lines = [
    `seed ${r.seed}: ${r.operations} operations, ${r.restSent} REST requests, ${r.wsSent} WebSocket frames in ${r.seconds} s`,
    `statuses: ${Object.entries(r.statuses)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
    `ws answers: ${Object.entries(r.wsAnswers)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
    `findings: ${r.findings.length} (5xx ${r.findings.filter((f) => f.kind === '5xx').length}, hangs ${r.findings.filter((f) => f.kind === 'hang').length}, crash ${r.crashed ? 1 : 0}, other ${r.findings.filter((f) => !['5xx', 'hang', 'crash'].includes(f.kind)).length})`,
  ];
  for (const f of r.findings) lines.push(`- [${f.kind}] #${f.index} ${f.where}: ${f.what}\n    ${f.detail}`);
  if (r.errorLogs.length) lines.push(`server error logs: ${r.errorLogs.length}`, ...r.errorLogs.slice(0, 20).map((l) => `  ${l}`));
  return lines.join('\n');
}
