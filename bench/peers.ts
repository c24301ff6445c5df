/**
 * bench:peers (issue 27): Parley beside WhisperLiveKit and WhisperLive in one run, on this
 * machine, on the same Whisper weights (one CTranslate2 model folder, int8, 2 threads), one
 * system at a time. Each session streams the same recording at real-time pace over the
 * system's own WebSocket protocol (bench/peers/protocols.ts): jfk and the five LibriVox clips of
 * Debian's pocketsphinx-testdata, 1 s of silence after each clip, then 4 s of silence (a live
 * stream goes on after the speaker stops; it lets every system close its last sentence), then
 * the protocol's end. N = 1, 2, 4 concurrent sessions (after one warm-up session); per system
 * and N it prints:
 *
 * - per-word delay p50/p95 (issue 14, code in ./word-delay.ts): for each word of the final
 *   transcript, its first appearance minus the send time of the chunk holding its audio end
 *   (word ends from Parley's file recognizer on each clip, Whisper base word timestamps).
 *   Compared on the protocol-neutral "display" view (the whole transcript the client shows
 *   after each message, aligned to the session's final transcript); Parley's per-sentence
 *   figure (issue 14's exact reading) is printed beside it.
 * - final WER of the session's final transcript against the reference texts (worst session).
 * - finals lag p50/p95: each final's arrival minus the send time of the chunk holding the end
 *   of the audio it covers (Parley: a final's `end_ms`; WhisperLiveKit: a commit and its
 *   line's `end`; WhisperLive: a completed segment's `end`).
 * - CPU seconds per audio second: CPU time of the server's process tree (Parley's engine host
 *   included) over the level / (N x audio seconds).
 * - peak RSS of the process tree during the level (sum over processes), and at idle.
 * - sustained: the largest N whose finals lag p95 stays under 2 s with every session ended
 *   and no errors.
 *
 * Clients and servers share this machine's cores with other work: the load average is printed.
 * Install the peers first: bench/peers/setup.sh (a peer that is not installed or does not
 * start is reported with the reason and the run goes on).
 *
 * Usage: npm run -s bench:peers [-- --levels 1,2,4 --systems parley,whisperlivekit,whisperlive --model-dir DIR --trace-words]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { whisperFactory } from '../src/engines/neural/whisper.js';
import { normalizeWords, wordErrorRate } from '../src/engines/quality/wer.js';
import type { FileRecognizer } from '../src/engines/types.js';
import { JFK, JFK_TEXT, librivoxClips } from '../test/support/audio.js';
import { WHISPER_MODEL_DIR } from '../test/support/whisper.js';
import { rssPeakSampler, treeCpuSeconds, treeRssBytes } from './peers/proc.js';
import { CHUNK_MS, runSession, type SessionResult } from './peers/protocols.js';
import { parleySystem, type RunningSystem, type SystemSpec, THREADS, whisperLiveKitSystem, whisperLiveSystem } from './peers/systems.js';
import { alignedIndexes, percentile, type TimedWord, wordDelays } from './word-delay.js';

const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? String(process.argv[i + 1]) : fallback;
};
const LEVELS = option('levels', '1,2,4').split(',').map(Number);
const SYSTEMS: Record<string, SystemSpec> = { parley: parleySystem, whisperlivekit: whisperLiveKitSystem, whisperlive: whisperLiveSystem };
const CHOSEN = option('systems', 'parley,whisperlivekit,whisperlive').split(',');
const MODEL_DIR = option('model-dir', process.env.PARLEY_WHISPER_MODEL_DIR ?? WHISPER_MODEL_DIR);
const LAG_TARGET_MS = 2000;
const GAP_MS = 1000;
const TAIL_MS = 4000;
const RATE = 16_000;

const silence = (ms: number) => Buffer.alloc((ms * RATE * 2) / 1000);
const pcmOf = (file: string) =>
  execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-ar', String(RATE), '-ac', '1', 'pipe:1'], { maxBuffer: 64 << 20 });

interface Clip {
  pcm: Buffer;
  text: string;
  offsetMs: number;
}

/** The streamed recording: clips with a gap after each, then the tail; and the reference text. */
function buildStream(): { pcm: Buffer; clips: Clip[]; reference: string; speechMs: number } {
  const sources = [{ path: JFK, text: JFK_TEXT }, ...librivoxClips()];
  const parts: Buffer[] = [];
  const clips: Clip[] = [];
  let offsetMs = 0;
  for (const s of sources) {
    const pcm = pcmOf(s.path);
    clips.push({ pcm, text: s.text, offsetMs });
    parts.push(pcm, silence(GAP_MS));
    offsetMs += pcm.length / 32 + GAP_MS;
  }
  parts.push(silence(TAIL_MS));
  const pcm = Buffer.concat(parts);
  return { pcm, clips, reference: sources.map((s) => s.text).join(' '), speechMs: clips.reduce((s, c) => s + c.pcm.length / 32, 0) };
}

/** Word end times of the stream: Parley's file recognizer (Whisper, this model) on each clip. */
async function referenceTimeline(clips: Clip[]): Promise<TimedWord[]> {
  const config = loadConfig({ PARLEY_WHISPER: 'on', PARLEY_WHISPER_MODEL_DIR: MODEL_DIR });
  const file = await whisperFactory.create({ config, modelsDir: '', logger: pino({ level: 'silent' }), loaded: [] });
  if ('unavailable' in file) throw new Error(`word times need Whisper: ${file.unavailable}`);
  const recognizer = file as FileRecognizer;
  const timeline: TimedWord[] = [];
  try {
    for (const c of clips) {
      const samples = new Float32Array(c.pcm.length / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = c.pcm.readInt16LE(i * 2) / 32768;
      const t = await recognizer.transcribe({ sampleRate: RATE, samples }, { language: 'en-US' });
      for (const w of t.segments.flatMap((s) => s.words))
        for (const word of normalizeWords(w.text)) timeline.push({ word, endMs: c.offsetMs + w.endMs });
    }
  } finally {
    await recognizer.close?.();
  }
  return timeline;
}

interface Row {
  system: string;
  n: number;
  wordP50: number;
  wordP95: number;
  sentenceP95: number;
  /** Per-sentence view: words no interim showed (first shown by their final), their count and p50 delay. */
  byFinalCount: number;
  byFinalP50: number;
  wordCount: number;
  wer: number;
  lagP50: number;
  lagP95: number;
  cpuPerAudioS: number;
  peakRssMb: number;
  errors: string[];
  ok: boolean;
}

const load = () => loadavg()[0]!.toFixed(2);

/** `--trace-words`: each session's sentences as the client saw them, then its words with their delays ("*": first shown by the final). */
const TRACE_WORDS = process.argv.includes('--trace-words');
function printTrace(system: string, session: number, r: SessionResult, words: string[]): void {
  const start = r.sentAt[0] ?? 0;
  console.log(`   ${system} session ${session + 1}:`);
  for (const s of r.seen)
    console.log(`     ${((s.at - start) / 1000).toFixed(2)} s #${s.sid} ${s.final ? 'final  ' : 'interim'} ${s.words.join(' ')}`);
  console.log(`     words: ${words.join(', ')}`);
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function level(sys: RunningSystem, n: number, stream: ReturnType<typeof buildStream>, timeline: TimedWord[]): Promise<Row> {
  const cpu0 = treeCpuSeconds(sys.pid);
  const sampler = rssPeakSampler(sys.pid);
  const results: SessionResult[] = await Promise.all(
    Array.from({ length: n }, async () => runSession(sys.protocol, sys.url, stream.pcm, await sys.ticket?.())),
  );
  const peak = sampler.stop();
  const cpu = treeCpuSeconds(sys.pid) - cpu0;
  const words = sorted(
    results.flatMap((r) =>
      wordDelays(
        [...r.display, { sid: 0, final: true, words: normalizeWords(r.finalText), at: r.display.at(-1)?.at ?? 0 }],
        r.sentAt,
        CHUNK_MS,
        timeline,
        alignedIndexes,
      ),
    ),
  );
  const onlyByFinal: number[] = [];
  const bySentence = sorted(
    results.flatMap((r, i) => {
      const trace: string[] = [];
      const add = (word: string, ms: number, byFinal: boolean) => trace.push(`${word} ${ms.toFixed(0)}${byFinal ? '*' : ''}`);
      const delays = wordDelays(r.seen, r.sentAt, CHUNK_MS, timeline, alignedIndexes, onlyByFinal, TRACE_WORDS ? add : undefined);
      if (TRACE_WORDS) printTrace(sys.name, i, r, trace);
      return delays;
    }),
  );
  const lags = sorted(results.flatMap((r) => r.finalLags));
  const errors = [...new Set(results.flatMap((r) => r.errors))];
  const lagP95 = percentile(lags, 95);
  return {
    system: sys.name,
    n,
    wordP50: percentile(words, 50),
    wordP95: percentile(words, 95),
    sentenceP95: percentile(bySentence, 95),
    byFinalCount: onlyByFinal.length,
    byFinalP50: percentile(sorted(onlyByFinal), 50),
    wordCount: bySentence.length,
    wer: Math.max(...results.map((r) => wordErrorRate(stream.reference, r.finalText))),
    lagP50: percentile(lags, 50),
    lagP95,
    cpuPerAudioS: cpu / (n * (stream.pcm.length / 32_000)),
    peakRssMb: peak / 2 ** 20,
    errors,
    ok: errors.length === 0 && results.every((r) => r.ended) && lags.length > 0 && lagP95 < LAG_TARGET_MS,
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'parley-bench-peers-'));
  const stream = buildStream();
  console.log(
    `bench:peers on ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}; model ${MODEL_DIR} (int8, ${THREADS} threads); stream ${(stream.pcm.length / 32_000).toFixed(1)} s (jfk + ${stream.clips.length - 1} LibriVox clips, ${(stream.speechMs / 1000).toFixed(1)} s of speech, ${GAP_MS} ms gaps, ${TAIL_MS} ms tail) in ${CHUNK_MS} ms chunks at real time; levels ${LEVELS.join(', ')}`,
  );
  const timeline = await referenceTimeline(stream.clips);
  console.log(`reference word times: ${timeline.length} words (Whisper file recognition per clip); load ${load()}`);
  const rows: Row[] = [];
  const notRun: string[] = [];
  try {
    for (const key of CHOSEN) {
      const spec = SYSTEMS[key];
      if (!spec) throw new Error(`unknown system ${key} (choose from ${Object.keys(SYSTEMS).join(', ')})`);
      const why = spec.missing();
      if (why) {
        notRun.push(`${spec.name}: not run: ${why}`);
        console.log(`-- ${spec.name}: not run: ${why}`);
        continue;
      }
      // One server for all levels after a warm-up session, or a fresh one per level (see freshServerPerLevel).
      const batches = spec.freshServerPerLevel ? LEVELS.map((n) => [n]) : [LEVELS];
      for (const levels of batches) {
        const t0 = performance.now();
        let sys: RunningSystem;
        try {
          sys = await spec.start(MODEL_DIR, work);
        } catch (err) {
          notRun.push(`${spec.name}: did not start: ${(err as Error).message.split('\n')[0]}`);
          console.log(`-- ${spec.name}: did not start: ${(err as Error).message}`);
          break;
        }
        try {
          const idle = treeRssBytes(sys.pid) / 2 ** 20;
          console.log(
            `-- ${sys.name}: ready in ${((performance.now() - t0) / 1000).toFixed(1)} s, process tree RSS ${idle.toFixed(0)} MB idle; load ${load()}`,
          );
          if (!spec.freshServerPerLevel) {
            const warm = await runSession(sys.protocol, sys.url, stream.pcm, await sys.ticket?.());
            console.log(
              `   warm-up: WER ${(100 * wordErrorRate(stream.reference, warm.finalText)).toFixed(1)} %${warm.errors.length ? `, errors: ${warm.errors.join(', ')}` : ''}: "${warm.finalText.slice(0, 120)}..."`,
            );
          } else console.log('   no warm-up session (a fresh server per level; the model loads when the first client connects)');
          for (const n of levels) {
            const row = await level(sys, n, stream, timeline);
            rows.push(row);
            console.log(
              `   N=${n}: per-word delay p50 ${row.wordP50.toFixed(0)} ms, p95 ${row.wordP95.toFixed(0)} ms (per sentence p95 ${row.sentenceP95.toFixed(0)} ms; ${row.byFinalCount} of ${row.wordCount} words first shown by their final, p50 ${row.byFinalP50.toFixed(0)} ms); WER ${(100 * row.wer).toFixed(1)} %; finals lag p50 ${row.lagP50.toFixed(0)} ms, p95 ${row.lagP95.toFixed(0)} ms; CPU ${row.cpuPerAudioS.toFixed(3)} s per audio s; peak RSS ${row.peakRssMb.toFixed(0)} MB; load ${load()}${row.errors.length ? `; errors: ${row.errors.join(', ')}` : ''}${row.ok ? '' : '  <- not sustained'}`,
            );
          }
        } finally {
          await sys.stop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  printTable(rows, notRun);
}

/** The largest N of the levels (in order) up to the first one that was not sustained. */
function sustained(rows: Row[]): number {
  let best = 0;
  for (const r of rows) {
    if (!r.ok) break;
    best = r.n;
  }
  return best;
}

function printTable(rows: Row[], notRun: string[]): void {
  const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  console.log(
    `\n| system | N | per-word delay p50 / p95 (ms) | final WER | finals lag p50 / p95 (ms) | CPU s per audio s | peak RSS (MB) |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.system} | ${r.n} | ${f0(r.wordP50)} / ${f0(r.wordP95)} | ${(100 * r.wer).toFixed(1)} % | ${f0(r.lagP50)} / ${f0(r.lagP95)}${r.ok ? '' : ' (not sustained)'} | ${r.cpuPerAudioS.toFixed(3)} | ${f0(r.peakRssMb)} |`,
    );
  console.log('\nsessions sustained (largest N with finals lag p95 < 2 s, every session ended, no errors):');
  for (const name of [...new Set(rows.map((r) => r.system))]) console.log(`  ${name}: ${sustained(rows.filter((r) => r.system === name))}`);
  for (const line of notRun) console.log(`  ${line}`);
  console.log(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
