/**
 * bench:diarizer — accuracy of every diarizer installed here (bench/diarizer-accuracy.ts), the
 * same recordings fed to the live diarizers as a session feeds them (bench/diarizer-live.ts),
 * then memory of file diarization as the recording grows.
 *
 * A recording of N minutes (jfk and the two-voice stereo mix, tiled) is written as 16 kHz PCM
 * to a temporary file, then diarized in a child process two ways, each measured alone:
 *   - source: the diarizer reads the file a part at a time (what imports and retries do);
 *   - whole:  the file read into memory first, then diarized (the baseline: how it was done).
 * Printed: peak RSS (sampled after a garbage collection every 250 ms) over the process's RSS
 * before diarizing, and the time taken.
 * Usage: npm run bench:diarizer [-- --minutes 20,60] [-- --accuracy-only]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPcm } from '../src/engines/audio/ffmpeg.js';
import { CATALOG } from '../src/engines/catalog.js';
import type { Diarizer, VoiceActivityDetector } from '../src/engines/types.js';
import { PcmFile } from '../src/processing/pcm-file.js';
import { accuracy, diarizers, printAccuracy, recordings } from './diarizer-accuracy.js';
import { liveAccuracy, printLive } from './diarizer-live.js';

const SHARED = process.env.PARLEY_SHARED_AUDIO ?? '/work/shared/audio';
const ff = { ffmpegPath: 'ffmpeg' };

async function child(mode: string, path: string): Promise<void> {
  const ctx = { config: { engines: { ffmpegPath: 'ffmpeg', pocketsphinxDecoders: 1 } }, modelsDir: '', logger: undefined } as never;
  const diarizer = (await CATALOG.find((f) => f.kind === 'diarizer' && f.tier === 'builtin')!.create(ctx)) as Diarizer;
  const file = new PcmFile(path);
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  // Collected first, so the figure is what the diarizer holds, not garbage V8 has not reclaimed yet
  // (the diarizer yields to the event loop between regions, so this runs throughout).
  const timer = setInterval(() => {
    global.gc?.();
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 250);
  const t0 = performance.now();
  const turns = await diarizer.diarize(mode === 'source' ? file : file.read(0, file.durationMs + 1));
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(JSON.stringify({ peakMb: (peak - base) / 2 ** 20, ms, speakers: new Set(turns.map((t) => t.speakerId)).size }));
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function accuracyPart(): Promise<void> {
  const { engines, unavailable } = await diarizers();
  const vad = (await CATALOG.find((f) => f.kind === 'vad')!.create({
    config: {},
    modelsDir: '',
    loaded: [],
  } as never)) as VoiceActivityDetector;
  console.log(`bench:diarizer accuracy  load ${load()}`);
  for (const u of unavailable) console.log(`not measured: ${u}`);
  const recs = await recordings(vad);
  printAccuracy(await accuracy(engines, recs));
  console.log(`(load after: ${load()})`);
  printLive(await liveAccuracy(engines, recs, vad));
  console.log(`(load after: ${load()})\n`);
  for (const e of engines) await e.close?.();
}

async function main(): Promise<void> {
  await accuracyPart();
  if (process.argv.includes('--accuracy-only')) return;
  const arg = process.argv.indexOf('--minutes');
  const minutes = (arg > 0 ? process.argv[arg + 1]! : '10,30').split(',').map(Number);
  const [jfk, stereo] = await Promise.all([
    decodeToPcm(join(SHARED, 'jfk.flac'), ff),
    decodeToPcm(join(SHARED, 'stereo_diarization.wav'), ff),
  ]);
  const tile = new Int16Array(jfk.samples.length + stereo.samples.length);
  tile.set(Int16Array.from(jfk.samples, (x) => Math.round(x * 32767)));
  tile.set(
    Int16Array.from(stereo.samples, (x) => Math.round(x * 32767)),
    jfk.samples.length,
  );
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-diar-'));
  console.log(`bench:diarizer memory (${CATALOG.find((f) => f.kind === 'diarizer' && f.tier === 'builtin')!.id})  load ${load()}`);
  console.log('minutes | source: peak MB over start, s | whole in memory: peak MB, s');
  try {
    for (const m of minutes) {
      const reps = Math.ceil((m * 60 * 16000) / tile.length);
      const all = new Int16Array(reps * tile.length);
      for (let i = 0; i < reps; i++) all.set(tile, i * tile.length);
      const path = join(dir, `${m}.pcm`);
      writeFileSync(path, Buffer.from(all.buffer));
      const run = (mode: string) =>
        JSON.parse(
          execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--child', mode, path], {
            encoding: 'utf8',
          })
            .trim()
            .split('\n')
            .at(-1)!,
        ) as { peakMb: number; ms: number };
      const s = run('source');
      const w = run('whole');
      console.log(
        `${m} | ${s.peakMb.toFixed(0)} MB, ${(s.ms / 1000).toFixed(1)} s | ${w.peakMb.toFixed(0)} MB, ${(w.ms / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt > 0) await child(process.argv[childAt + 1]!, process.argv[childAt + 2]!);
else await main();
