/**
 * bench:diarizer, accuracy part: every diarizer the catalogue can build here (the classic MFCC
 * clusterer; sherpa-onnx's neural one where its models are installed) on two-speaker
 * recordings whose reference is known:
 *   - stereo: stereo_diarization.wav mixed to mono (a different speaker on each channel: the
 *     VAD on each channel gives who speaks when);
 *     (the two sentences overlap for about 2.3 s: it scores overlapped speech more than turns);
 *   - dialogues A and B: spliced two-speaker recordings: JFK's speech (A) or the keyword
 *     speaker of multiple_keywords.wav (B) against a LibriVox reader (pocketsphinx-testdata),
 *     cut at the VAD's pauses (long phrases at a quiet point, 1.5-4 s) and alternated phrase by
 *     phrase with 0.3-0.9 s gaps, each source at the same loudness. Real voices, constructed
 *     turns: the recordings also differ in channel, which helps any diarizer.
 * Scores (src/engines/quality/diarization.ts): speaker error share (missed + confused speech),
 * turn boundaries found within 0.5 s (recall / precision), speakers found, real-time factor.
 * Each engine runs twice: told nothing (as imports call it) and told there are 2 speakers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { decodeToPcm } from '../src/engines/audio/ffmpeg.js';
import { CATALOG } from '../src/engines/catalog.js';
import { modelsDirFrom } from '../src/engines/models/paths.js';
import { type DiarizationScore, scoreDiarization } from '../src/engines/quality/diarization.js';
import type { EngineContext } from '../src/engines/registry.js';
import type { Diarizer, PcmAudio, SpeechSegment, VoiceActivityDetector } from '../src/engines/types.js';

const SHARED = process.env.PARLEY_SHARED_AUDIO ?? '/work/shared/audio';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const RATE = 16000;
const ff = { ffmpegPath: 'ffmpeg' };

export interface Recording {
  name: string;
  audio: PcmAudio;
  reference: SpeechSegment[][];
}

function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

/** Frames of 20 ms. */
const FRAME = RATE / 50;

/** Cuts a VAD segment longer than `maxS` at its quietest 20 ms between minS and maxS, and so on. */
function cut(x: Float32Array, minS: number, maxS: number): Float32Array[] {
  if (x.length <= maxS * RATE) return [x];
  let best = minS * RATE;
  let bestE = Number.POSITIVE_INFINITY;
  for (let at = minS * RATE; at + FRAME <= maxS * RATE; at += FRAME) {
    const e = rms(x.subarray(at, at + FRAME));
    if (e < bestE) [best, bestE] = [at, e];
  }
  return [x.subarray(0, best), ...cut(x.subarray(best), minS, maxS)];
}

/** Phrases of one source (VAD segments, long ones cut to 1.5-4 s at a quiet point), each at the same loudness. */
async function phrases(vad: VoiceActivityDetector, files: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const f of files) {
    const audio = await decodeToPcm(f, ff);
    const gain = 0.05 / rms(audio.samples);
    for (const s of await vad.segments(audio)) {
      const x = Float32Array.from(audio.samples.subarray((s.startMs * RATE) / 1000, (s.endMs * RATE) / 1000), (v) => v * gain);
      out.push(...cut(x, 1.5, 4));
    }
  }
  return out;
}

/** Two voices' phrases alternated (until the shorter source runs out) with 0.3-0.9 s gaps; the reference from each voice's own track. */
async function dialogue(vad: VoiceActivityDetector, name: string, a: Float32Array[], b: Float32Array[]): Promise<Recording> {
  const tracks: Float32Array[][] = [[], []];
  const gap = (i: number) => new Float32Array(Math.round(RATE * (0.3 + ((i * 37) % 7) / 10))); // fixed pattern
  for (let i = 0; i < Math.min(a.length, b.length) * 2; i++) {
    const who = i % 2;
    const piece = (who ? b : a)[i >> 1]!;
    tracks[who]!.push(piece, gap(i));
    tracks[1 - who]!.push(new Float32Array(piece.length), gap(i));
  }
  const joined = tracks.map((parts) => {
    const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }) as [Float32Array, Float32Array];
  const mixed = Float32Array.from(joined[0], (v, k) => v + joined[1][k]!);
  const reference = [
    await vad.segments({ sampleRate: RATE, samples: joined[0] }),
    await vad.segments({ sampleRate: RATE, samples: joined[1] }),
  ];
  return { name, audio: { sampleRate: RATE, samples: mixed }, reference };
}

export async function recordings(vad: VoiceActivityDetector): Promise<Recording[]> {
  const stereo = join(SHARED, 'stereo_diarization.wav');
  const out: Recording[] = [];
  if (existsSync(stereo))
    out.push({
      name: 'stereo_diarization.wav mixed to mono',
      audio: await decodeToPcm(stereo, ff),
      reference: [
        await vad.segments(await decodeToPcm(stereo, { ...ff, channel: 0 })),
        await vad.segments(await decodeToPcm(stereo, { ...ff, channel: 1 })),
      ],
    });
  const reader = ['0870', '0880', '0890', '0920', '0930'].map((n) => join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${n}.wav`));
  if (existsSync(join(SHARED, 'jfk.flac')) && existsSync(LIBRIVOX)) {
    const readerPhrases = await phrases(vad, reader);
    out.push(
      await dialogue(vad, 'dialogue A: JFK + LibriVox reader, spliced', await phrases(vad, [join(SHARED, 'jfk.flac')]), readerPhrases),
    );
    out.push(
      await dialogue(
        vad,
        'dialogue B: keyword speaker + LibriVox reader, spliced',
        await phrases(vad, [join(SHARED, 'multiple_keywords.wav')]),
        readerPhrases,
      ),
    );
  }
  return out;
}

export interface AccuracyRow extends DiarizationScore {
  engine: string;
  recording: string;
  told: string;
  seconds: number;
  rtf: number;
}

/** Every diarizer the catalogue builds here, with the reason for each one that it cannot. */
export async function diarizers(): Promise<{ engines: Diarizer[]; unavailable: string[] }> {
  const config = loadConfig();
  const ctx: EngineContext = { config, modelsDir: modelsDirFrom(config), logger: pino({ level: 'silent' }), loaded: [] };
  const engines: Diarizer[] = [];
  const unavailable: string[] = [];
  for (const f of CATALOG.filter((x) => x.kind === 'diarizer')) {
    const r = await f.create(ctx);
    if ('unavailable' in r) unavailable.push(`${f.id}: ${r.unavailable}`);
    else engines.push(r as Diarizer);
  }
  return { engines, unavailable };
}

export async function accuracy(engines: Diarizer[], recs: Recording[]): Promise<AccuracyRow[]> {
  const rows: AccuracyRow[] = [];
  for (const rec of recs)
    for (const engine of engines)
      for (const numSpeakers of [undefined, 2]) {
        const durationMs = (rec.audio.samples.length / RATE) * 1000;
        const t0 = performance.now();
        const turns = await engine.diarize(rec.audio, { numSpeakers });
        const seconds = (performance.now() - t0) / 1000;
        rows.push({
          engine: engine.id,
          recording: rec.name,
          told: numSpeakers ? `${numSpeakers} speakers` : 'nothing',
          seconds,
          rtf: seconds / (durationMs / 1000),
          ...scoreDiarization(turns, rec.reference, durationMs),
        });
      }
  return rows;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function printAccuracy(rows: AccuracyRow[]): void {
  let last = '';
  for (const r of rows) {
    if (r.recording !== last) {
      console.log(`\n${r.recording}`);
      console.log(`${(rows.find((x) => x.recording === r.recording)!.speakerMs / 1000).toFixed(1)} s of speaker time`);
      console.log(
        'engine | told | speaker error = missed + false alarm + confused | boundaries within 0.5 s: recall, precision | speakers | RTF',
      );
      last = r.recording;
    }
    console.log(
      `${r.engine} | ${r.told} | ${pct(r.speakerErrorShare)} = ${pct(r.missedShare)} + ${pct(r.falseAlarmShare)} + ${pct(r.confusedShare)} | ` +
        `${pct(r.boundaryRecall)} of ${r.referenceBoundaries}, ${pct(r.boundaryPrecision)} of ${r.foundBoundaries} | ${r.speakersFound} | ${r.rtf.toFixed(3)}`,
    );
  }
}
