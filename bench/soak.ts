/**
 * bench:soak (issue 19): `--sessions` (default 20) live sessions at real-time pace for
 * `--minutes` (default 60) against a server running as its own process (`src/main.ts`,
 * built-in engines, SQLite), with the server's resident memory sampled every minute. Each
 * client streams jfk.flac (16 kHz PCM, 100 ms chunks on an absolute schedule) in recordings of
 * `--session-seconds` (default 120: jfk looped), stops, waits for task_complete and starts the
 * next one, so both long streams and session churn (finalization, M4A, webhooks-free) run.
 * The report: RSS per minute, the least-squares slope after the first `--warmup` minutes (MB
 * per minute and per hour; flat memory is the target), sessions completed, finals, interim
 * latency p50/p95 per minute and the error codes seen (stt_audio_dropped means recognition fell
 * behind real time on this machine). Not a test: it prints figures; the load average is noted
 * at the start and the end because a shared machine changes them.
 *
 * Usage: npm run -s bench:soak [-- --minutes 5 --sessions 20 --session-seconds 120 --warmup 1]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { JFK } from '../test/support/audio.js';
import { firstStartKey, localServerEnv, rssBytes, startServer } from '../test/support/server.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
};
const MINUTES = arg('minutes', 60);
const SESSIONS = arg('sessions', 20);
const SESSION_MS = arg('session-seconds', 120) * 1000;
const WARMUP_MIN = arg('warmup', 1);
const SAMPLE_MS = arg('sample-seconds', 60) * 1000;
const CHUNK_MS = 100;
const CHUNK_BYTES = 32 * CHUNK_MS;

const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
  maxBuffer: 64 << 20,
});

interface Stats {
  sessions: number;
  finals: number;
  errors: Map<string, number>;
  /** Interim latencies (ms) since the last sample. */
  latencies: number[];
}

const stats: Stats = { sessions: 0, finals: 0, errors: new Map(), latencies: [] };
const count = (code: string) => stats.errors.set(code, (stats.errors.get(code) ?? 0) + 1);

async function ticket(base: string, key: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/auth/ticket`, { method: 'POST', headers: { 'x-api-key': key } });
  const body = (await r.json()) as { data: { ticket: string } };
  if (r.status !== 200) throw new Error(`ticket ${r.status}: ${JSON.stringify(body)}`);
  return body.data.ticket;
}

/** One client until `endAt`: recordings of SESSION_MS each, back to back on one connection. */
async function client(base: string, key: string, endAt: number): Promise<void> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, [`ticket.${await ticket(base, key)}`]);
  let waiter: ((m: { type: string; data: Record<string, unknown> }) => boolean) | null = null;
  let wake: () => void = () => {};
  const sentAt: number[] = [];
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as { type: string; data: Record<string, unknown> & { origin?: Record<string, unknown> } };
    if (m.type === 'error') count(String(m.data.error_code));
    if (m.data.action === 'result' && m.data.origin) {
      if (m.data.origin.is_final) stats.finals++;
      else {
        const t = sentAt[Math.ceil(Number(m.data.origin.end_ms) / CHUNK_MS) - 1];
        if (t !== undefined) stats.latencies.push(performance.now() - t);
      }
    }
    if (waiter?.(m)) {
      waiter = null;
      wake();
    }
  });
  const next = (pred: (m: { type: string; data: Record<string, unknown> }) => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      waiter = pred;
      wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (data: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'voice-translation', data }));
  while (Date.now() < endAt && ws.readyState === WebSocket.OPEN) {
    const started = next((m) => m.data.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning'), 30_000);
    send({ action: 'start', type: 'transcribe', transcription_languages: ['en'], audio_format: 'pcm' });
    if (!(await started)) break;
    sentAt.length = 0;
    const t0 = performance.now();
    const until = Math.min(endAt, Date.now() + SESSION_MS);
    for (let k = 0; Date.now() < until && ws.readyState === WebSocket.OPEN; k++) {
      const wait = t0 + k * CHUNK_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const at = (k * CHUNK_BYTES) % (pcm.length - (pcm.length % CHUNK_BYTES));
      ws.send(pcm.subarray(at, at + CHUNK_BYTES));
      sentAt.push(performance.now());
    }
    const done = next((m) => m.data.action === 'task_complete', 120_000);
    send({ action: 'stop' });
    if (await done) stats.sessions++;
  }
  ws.close();
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return num / den;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'parley-bench-soak-'));
  const { base, env } = await localServerEnv(join(work, 'data'), {
    PARLEY_STARTER_CREDIT: '10000000',
    // One decoder per live stream, so the pool is not the limit (each ~60 MB, loaded on first use).
    PARLEY_POCKETSPHINX_DECODERS: String(SESSIONS),
  });
  const server = startServer(env);
  try {
    await server.ready;
    const key = firstStartKey(server);
    const pid = server.child.pid as number;
    const mb = (b: number) => b / 1024 / 1024;
    const idle = mb(await rssBytes(pid));
    console.log(
      `bench:soak on ${cpus().length} cores, load average ${load()} at the start; ${SESSIONS} sessions of ${SESSION_MS / 1000} s (jfk looped, real time, 100 ms chunks) for ${MINUTES} min; idle server RSS ${idle.toFixed(1)} MB`,
    );
    const t0 = Date.now();
    const endAt = t0 + MINUTES * 60_000;
    const clients = Array.from({ length: SESSIONS }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 150))
        .then(() => client(base, key, endAt))
        .catch((err: Error) => count(`client: ${err.message}`)),
    );
    const samples: { minute: number; rssMb: number }[] = [];
    console.log('minute  rss MB  sessions done  finals  interim p50/p95 ms  load');
    while (Date.now() < endAt) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, Math.max(0, endAt - Date.now()))));
      const minute = (Date.now() - t0) / 60_000;
      const rssMb = mb(await rssBytes(pid));
      samples.push({ minute, rssMb });
      const lat = stats.latencies.splice(0);
      console.log(
        `${minute.toFixed(1).padStart(6)}  ${rssMb.toFixed(1).padStart(6)}  ${String(stats.sessions).padStart(13)}  ${String(stats.finals).padStart(6)}  ${`${percentile(lat, 50).toFixed(0)}/${percentile(lat, 95).toFixed(0)}`.padStart(18)}  ${load()}`,
      );
    }
    await Promise.all(clients);
    const after = samples.filter((s) => s.minute > WARMUP_MIN);
    const perMin = slope(after.map((s) => ({ x: s.minute, y: s.rssMb })));
    console.log(
      `\nRSS slope after the first ${WARMUP_MIN} min: ${perMin.toFixed(2)} MB/min (${(perMin * 60).toFixed(0)} MB/hour) over ${after.length} samples; ` +
        `first ${samples[0]?.rssMb.toFixed(1)} MB, last ${samples.at(-1)?.rssMb.toFixed(1)} MB, peak ${Math.max(...samples.map((s) => s.rssMb)).toFixed(1)} MB`,
    );
    console.log(`sessions completed ${stats.sessions}, finals ${stats.finals}; load average ${load()} at the end`);
    console.log(`errors: ${[...stats.errors].map(([k, v]) => `${k}×${v}`).join(' ') || 'none'}`);
  } finally {
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
