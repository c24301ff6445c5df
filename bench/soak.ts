/**
 * bench:soak (issues 19 and 26): `--sessions` (default 20) live sessions at real-time pace for
 * `--minutes` (default 60) against a server running as its own process (`src/main.ts`,
 * built-in engines, SQLite), with viewers and imports, and the server's memory and open files
 * sampled every minute.
 *
 * - Live: each client streams recordings of whole loops (jfk + 1 s pause, 12 s) of about
 *   `--session-seconds` (default 120), stops, waits for task_complete and starts the next, so
 *   both long streams and session churn (finalization, M4A) run. One of the sessions is the
 *   host of a broadcast (English, translated into Spanish) for the whole run.
 * - Viewers: `--viewers` (default 200) SSE streams of that broadcast, reconnecting if cut;
 *   each must receive every final sentence the host sent (origin and translation).
 * - Imports: every `--import-every` seconds (default 60) a WAV of jfk with a Spanish
 *   translation, followed to completion.
 * - Nothing lost: at the end every recording and import must be a completed task within 1 s
 *   of the audio sent, with the sentences received live and the same count per loop.
 *
 * The report: RSS, PSS and open file descriptors per minute, the least-squares slopes after
 * the first `--warmup` minutes (flat is the target), finals, interim latency p50/p95, viewers'
 * captions against the host's, imports and their durations, losses and the error codes seen
 * (stt_audio_dropped means recognition fell behind real time). Not a test: it prints figures;
 * the load average is noted at the start and the end because a shared machine changes them.
 * Whisper is off (PARLEY_WHISPER=off): 20 Whisper streams would overload a 2-core machine, and
 * the soak is about leaks, not recognition speed.
 *
 * Usage: npm run -s bench:soak [-- --minutes 5 --sessions 20 --session-seconds 120 --viewers 200 --import-every 60 --warmup 1]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstStartKey, localServerEnv, pssBytes, rssBytes, startServer } from '../test/support/server.js';
import { api, arg, errors, LOOP_MS, percentile, slope } from './soak/common.js';
import { importEvery, imports, makeWav } from './soak/imports.js';
import { live, reconnecting } from './soak/live.js';
import { losses, verify } from './soak/verify.js';
import { viewers, watch } from './soak/viewers.js';

const MINUTES = arg('minutes', 60);
const SESSIONS = Math.max(1, arg('sessions', 20));
const LOOPS = Math.max(1, Math.round((arg('session-seconds', 120) * 1000) / LOOP_MS));
const VIEWERS = arg('viewers', 200);
const IMPORT_MS = arg('import-every', 60) * 1000;
const WARMUP_MIN = arg('warmup', 1);
const SAMPLE_MS = arg('sample-seconds', 60) * 1000;
const JFK_MS = 11_000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const mb = (b: number) => b / 1024 / 1024;
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

function slopeLine(label: string, unit: string, samples: { minute: number; y: number }[]): string {
  const after = samples.filter((s) => s.minute > WARMUP_MIN);
  const perMin = slope(after.map((s) => ({ x: s.minute, y: s.y })));
  const ys = samples.map((s) => s.y);
  return `${label} slope after the first ${WARMUP_MIN} min: ${perMin.toFixed(2)} ${unit}/min (${(perMin * 60).toFixed(1)} ${unit}/hour) over ${after.length} samples; first ${ys[0]?.toFixed(1)}, last ${ys.at(-1)?.toFixed(1)}, min ${Math.min(...ys).toFixed(1)}, peak ${Math.max(...ys).toFixed(1)} ${unit}`;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'parley-bench-soak-'));
  const wav = makeWav(work);
  const { base, env } = await localServerEnv(join(work, 'data'), {
    PARLEY_STARTER_CREDIT: '10000000',
    // One decoder per live stream and two for imports, so the pool is not the limit (each ~60 MB, loaded on first use).
    PARLEY_POCKETSPHINX_DECODERS: String(SESSIONS + 2),
    // Built-in engines only: Whisper streams would overload the 2 cores (see above).
    PARLEY_WHISPER: 'off',
    // Every viewer connects from 127.0.0.1: one source may hold all seats here.
    PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100',
    PARLEY_BROADCAST_VIEWER_LIMIT: String(Math.max(VIEWERS, 1000)),
  });
  const server = startServer(env);
  try {
    await server.ready;
    const key = firstStartKey(server);
    const pid = server.child.pid as number;
    const created = await api<{ data: { token: string } }>(base, key, '/api/v1/broadcasts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'soak',
        transcription_languages: ['en'],
        translation_languages: ['es'],
        max_viewers: Math.max(VIEWERS, 1),
      }),
    });
    if (created.status !== 200) throw new Error(`broadcast: ${created.status} ${JSON.stringify(created.body)}`);
    const token = created.body.data.token;
    console.log(
      `bench:soak on ${cpus().length} cores, load average ${load()} at the start; ${SESSIONS} live sessions (one the broadcast host) of ${LOOPS} loops (${(LOOPS * LOOP_MS) / 1000} s: jfk + 1 s pause, real time, 100 ms chunks) for ${MINUTES} min; ${VIEWERS} viewers; an import every ${IMPORT_MS / 1000} s; built-in engines (PARLEY_WHISPER=off); idle server RSS ${mb(await rssBytes(pid)).toFixed(1)} MB, PSS ${mb(await pssBytes(pid)).toFixed(1)} MB, ${fds(pid)} fds`,
    );
    const t0 = Date.now();
    const endAt = t0 + MINUTES * 60_000;
    let watching: Promise<void> = Promise.resolve();
    const onLive = () => {
      watching = watch(`${base}/broadcast/${token}/text?lang=es`, VIEWERS, endAt + 120_000);
    };
    const clients = Array.from({ length: SESSIONS }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 150))
        .then(() => reconnecting({ base, key, endAt, loops: i === 0 ? 0 : LOOPS, broadcastToken: token, onLive }))
        .catch((err: Error) => errors.set(`client: ${err.message}`, (errors.get(`client: ${err.message}`) ?? 0) + 1)),
    );
    const importing = importEvery(base, key, wav, IMPORT_MS, endAt);
    const samples: { minute: number; rss: number; pss: number; fds: number }[] = [];
    console.log('minute  rss MB  pss MB  fds  recordings done  finals  interim p50/p95 ms  imports done  viewer captions  load');
    while (Date.now() < endAt) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, Math.max(0, endAt - Date.now()))));
      const s = { minute: (Date.now() - t0) / 60_000, rss: mb(await rssBytes(pid)), pss: mb(await pssBytes(pid)), fds: fds(pid) };
      samples.push(s);
      const lat = live.latencies.splice(0);
      const finals = live.recordings.reduce((n, r) => n + r.finals.size, 0);
      const captions = viewers.reduce((n, v) => n + v.origins.size, 0);
      console.log(
        [
          s.minute.toFixed(1).padStart(6),
          s.rss.toFixed(1).padStart(6),
          s.pss.toFixed(1).padStart(6),
          String(s.fds).padStart(4),
          String(live.recordings.filter((r) => r.completed).length).padStart(15),
          String(finals).padStart(6),
          `${percentile(lat, 50).toFixed(0)}/${percentile(lat, 95).toFixed(0)}`.padStart(18),
          String(imports.filter((i) => i.status === 'completed').length).padStart(12),
          String(captions).padStart(15),
          load(),
        ].join('  '),
      );
    }
    await Promise.all([...clients, importing]);
    await watching;
    const series = (k: 'rss' | 'pss' | 'fds') => samples.map((s) => ({ minute: s.minute, y: s[k] }));
    console.log(`\n${slopeLine('RSS', 'MB', series('rss'))}`);
    console.log(slopeLine('PSS', 'MB', series('pss')));
    console.log(slopeLine('open fds', 'fds', series('fds')));

    const regular = live.recordings.filter((r) => r.kind === 'live');
    const dropped = live.recordings.filter((r) => r.errors.includes('stt_audio_dropped')).length;
    console.log(`client stalls (a sender more than 300 ms behind its schedule, rescheduled, no burst): ${live.clientStalls}`);
    console.log(
      `recordings the server dropped audio of (stt_audio_dropped, recognition behind real time): ${dropped} of ${live.recordings.length}`,
    );
    console.log(
      `live recordings ${regular.length} (${regular.filter((r) => r.completed).length} got task_complete), finals received ${regular.reduce((n, r) => n + r.finals.size, 0)}`,
    );
    const host = live.recordings.find((r) => r.kind === 'broadcast');
    const hostSids = [...(host?.finals.keys() ?? [])];
    const missOrigin = viewers.map((v) => hostSids.filter((s) => !v.origins.has(s)).length);
    const missTranslation = viewers.map((v) => hostSids.filter((s) => !v.translations.has(s)).length);
    const everyOne = missOrigin.filter((m) => m === 0).length;
    console.log(
      `broadcast: host sent ${host?.sentMs ?? 0} ms of audio, ${hostSids.length} final sentences; ${viewers.length} viewers: ${everyOne} got every final, ` +
        `origins missing per viewer max ${Math.max(0, ...missOrigin)} (total ${missOrigin.reduce((a, b) => a + b, 0)}), translations missing per viewer max ${Math.max(0, ...missTranslation)} (total ${missTranslation.reduce((a, b) => a + b, 0)}); ` +
        `connects ${viewers.reduce((n, v) => n + v.connects, 0)} (reconnects ${viewers.reduce((n, v) => n + Math.max(0, v.connects - 1), 0)}), refused ${viewers.reduce((n, v) => n + v.refusals, 0)}, saw ended ${viewers.filter((v) => v.ended).length}`,
    );
    const done = imports.filter((i) => i.status === 'completed');
    const secs = done.map((i) => i.seconds);
    console.log(
      `imports ${imports.length}: completed ${done.length}, failed or refused ${imports.length - done.length}; upload to completed p50 ${percentile(secs, 50).toFixed(1)} s, p95 ${percentile(secs, 95).toFixed(1)} s, max ${Math.max(0, ...secs).toFixed(1)} s`,
    );
    const checks = await verify(base, key, live.recordings, imports, JFK_MS);
    const { perUnit, lost } = losses(checks);
    console.log(
      `nothing lost: ${checks.length} tasks checked (${[...perUnit].map(([k, v]) => `${k}: ${v} sentences per ${k === 'import' ? 'import' : 'loop'}`).join(', ')}); ${lost.length === 0 ? 'no loss' : `${lost.length} findings${lost.length > 60 ? ' (the first 60)' : ''}:\n  ${lost.slice(0, 60).join('\n  ')}`}`,
    );
    const kinds = new Map<string, number>();
    for (const l of lost) {
      const kind = /: duration/.test(l)
        ? 'duration off'
        : /received live/.test(l)
          ? 'stored != received'
          : /sentences for/.test(l)
            ? 'count off'
            : 'not completed';
      const label = `${l.split(' ')[0]} ${kind}`;
      kinds.set(label, (kinds.get(label) ?? 0) + 1);
    }
    if (kinds.size > 0) console.log(`findings by kind: ${[...kinds].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    console.log(`load average ${load()} at the end`);
    console.log(`errors: ${[...errors].map(([k, v]) => `${k}×${v}`).join(' ') || 'none'}`);
  } finally {
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
