/**
 * Imports benchmark (run on demand: `npm run -s bench:imports`). Prints:
 * 1. wall time and real-time factor of a 10-minute import (real speech: jfk.flac looped to
 *    10 minutes, mp3, built-in engines; with and without a Spanish translation), from upload
 *    to `completed`;
 * 2. peak memory growth of the server process while it receives a 500 MB upload (a WAV made
 *    by ffmpeg; api role only, so no job starts), which must stay under 64 MB.
 * The server runs as a separate process (src/main.ts on SQLite in a temporary data dir).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { JFK } from '../test/support/audio.js';
import { firstStartKey, localServerEnv, rssBytes, startServer } from '../test/support/server.js';

const work = mkdtempSync(join(tmpdir(), 'parley-bench-imports-'));
const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

async function server(roles: string) {
  // A process with only some roles needs a shared bus (REDIS_URL, a local Redis by default).
  const redis: Record<string, string> =
    roles === 'api,realtime,worker' ? {} : { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15' };
  const { base, env } = await localServerEnv(mkdtempSync(join(work, 'data-')), {
    PARLEY_ROLES: roles,
    PARLEY_STARTER_CREDIT: '100000',
    ...redis,
  });
  const s = startServer(env);
  await s.ready;
  return { ...s, base, key: firstStartKey(s) };
}

async function post(base: string, key: string, file: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ transcription_languages: '["en-US"]', recognition_mode: 'single', ...fields })) form.append(k, v);
  form.append('file', await openAsBlob(file), file.split('/').pop());
  const res = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  const body = (await res.json()) as { data: { import_id: string; error_code?: string } };
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data.import_id;
}

async function waitDone(base: string, key: string, id: string): Promise<string> {
  for (;;) {
    const r = (await (await fetch(`${base}/api/v1/imports/${id}`, { headers: { 'x-api-key': key } })).json()) as {
      data: { status: string; error_code: string | null };
    };
    if (r.data.status === 'completed' || r.data.status === 'failed') return r.data.error_code ?? r.data.status;
    await new Promise((res) => setTimeout(res, 250));
  }
}

async function tenMinuteImport() {
  const file = join(work, 'ten-minutes.mp3');
  ffmpeg(['-stream_loop', '-1', '-i', JFK, '-t', '600', '-ar', '16000', '-ac', '1', file]);
  const s = await server('api,realtime,worker');
  try {
    for (const [label, fields] of [
      ['transcription only', {}],
      ['with translation to es', { translation_languages: '["es"]' }],
    ] as const) {
      const started = performance.now();
      const id = await post(s.base, s.key, file, fields);
      const accepted = performance.now();
      const outcome = await waitDone(s.base, s.key, id);
      const total = (performance.now() - started) / 1000;
      console.log(
        `10-minute import (${label}): ${outcome}, upload ${((accepted - started) / 1000).toFixed(1)} s, total ${total.toFixed(1)} s, real-time factor ${(total / 600).toFixed(3)}`,
      );
    }
  } finally {
    s.child.kill('SIGTERM');
  }
}

async function bigUpload() {
  const file = join(work, 'big.wav');
  // 48 kHz stereo 16-bit: 192 KB/s, so 2730 s is just under 500 MiB (45 minutes, inside the duration bounds).
  ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-ac', '2', '-t', '2730', file]);
  const size = statSync(file).size;
  const s = await server('api');
  try {
    const pid = s.child.pid as number;
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = await rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      rssBytes(pid).then(
        (b) => {
          peak = Math.max(peak, b);
        },
        () => {}, // the process is gone (the bench is ending)
      );
    }, 25);
    const started = performance.now();
    await post(s.base, s.key, file, {});
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
    console.log(
      `500 MB upload (${mb(size)} MB WAV): accepted in ${seconds.toFixed(1)} s; server RSS baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, growth ${mb(peak - baseline)} MB (limit 64 MB)`,
    );
  } finally {
    s.child.kill('SIGTERM');
  }
}

console.log(
  `machine: ${cpus().length} x ${cpus()[0]?.model}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  const only = process.argv[2];
  if (!only || only === 'upload') await bigUpload();
  if (!only || only === 'ten') await tenMinuteImport();
} finally {
  rmSync(work, { recursive: true, force: true });
}
