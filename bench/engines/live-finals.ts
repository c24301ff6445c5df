/**
 * Live finals against the file result of the same audio (issue 14): jfk streamed at
 * real-time pace in 100 ms chunks, five times as 16 kHz PCM and once as WebM/Opus (what a
 * browser's MediaRecorder sends; the WebM is cut into 100 ms slices of its bytes and goes
 * through the live WebM decoder). Reports each final WER, whether the five PCM runs gave the
 * same text, and how close the live WebM decoder's PCM is to decoding the same WebM as a file.
 */
import { runFfmpeg } from '../../src/engines/audio/ffmpeg.js';
import { WebmStreamDecoder } from '../../src/engines/audio/stream.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';
import type { EngineRegistry } from '../../src/engines/registry.js';
import type { PcmAudio, RecognizerStream } from '../../src/engines/types.js';
import { atMost, type BenchRow } from './types.js';

const CHUNK_MS = 100;
const RUNS = 5;

function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32767)));
  return out;
}

/** Calls `send(i)` for i = 0..n-1, each at t0 + (i + 1) * 100 ms (a chunk goes out once it has been spoken). */
async function atRealTime(n: number, send: (i: number) => void): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i + 1) * CHUNK_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    send(i);
  }
}

async function openStream(registry: EngineRegistry, finals: string[]): Promise<RecognizerStream> {
  const rec = registry.find({ kind: 'streaming-stt', language: 'en-US' });
  if (!rec) throw new Error('no streaming recognizer');
  return rec.open({
    language: 'en-US',
    interimResults: true,
    onResult: (r) => {
      if (r.isFinal) finals.push(r.text);
    },
    onError: (e) => finals.push(`[error ${e.message}]`),
  });
}

async function livePcm(registry: EngineRegistry, audio: PcmAudio): Promise<string> {
  const finals: string[] = [];
  const stream = await openStream(registry, finals);
  const pcm = toInt16(audio.samples);
  const step = (audio.sampleRate * CHUNK_MS) / 1000;
  await atRealTime(Math.ceil(pcm.length / step), (i) => stream.write(pcm.subarray(i * step, (i + 1) * step)));
  await stream.end();
  return finals.join(' ');
}

async function liveWebm(registry: EngineRegistry, webm: Buffer, durationMs: number, ffmpegPath: string) {
  const finals: string[] = [];
  const stream = await openStream(registry, finals);
  const decoded: Int16Array[] = [];
  const decoder = new WebmStreamDecoder({
    ffmpegPath,
    onPcm: (pcm) => {
      decoded.push(pcm);
      stream.write(pcm);
    },
    onError: (e) => finals.push(`[error ${e.message}]`),
  });
  const n = Math.ceil(durationMs / CHUNK_MS);
  const size = Math.ceil(webm.length / n);
  await atRealTime(n, (i) => decoder.write(webm.subarray(i * size, (i + 1) * size)));
  await decoder.end();
  await stream.end();
  const pcm = new Int16Array(decoded.reduce((k, c) => k + c.length, 0));
  let at = 0;
  for (const c of decoded) {
    pcm.set(c, at);
    at += c.length;
  }
  return { text: finals.join(' '), pcm };
}

async function fileWerOf(registry: EngineRegistry, reference: string, pcm: Int16Array): Promise<number> {
  const rec = registry.find({ kind: 'file-stt', language: 'en-US' });
  if (!rec) throw new Error('no file recognizer');
  const samples = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! / 32768;
  const t = await rec.transcribe({ samples, sampleRate: 16_000 }, { language: 'en-US' });
  return wordErrorRate(reference, t.text) * 100;
}

/** Signal-to-difference ratio (dB) of b against a over their common length, and the length difference. */
function compare(a: Int16Array, b: Int16Array): { snrDb: number; lengthDiff: number } {
  const n = Math.min(a.length, b.length);
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < n; i++) {
    signal += a[i]! * a[i]!;
    noise += (a[i]! - b[i]!) ** 2;
  }
  return { snrDb: noise === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10(signal / noise), lengthDiff: b.length - a.length };
}

export async function liveFinalRows(
  registry: EngineRegistry,
  clip: { text: string; audio: PcmAudio },
  fileWer: number,
  ffmpegPath: string,
): Promise<BenchRow[]> {
  const limit = Number((fileWer * 1.1).toFixed(1));
  const texts: string[] = [];
  for (let i = 0; i < RUNS; i++) texts.push(await livePcm(registry, clip.audio));
  const wers = texts.map((t) => wordErrorRate(clip.text, t) * 100);
  const distinct = new Set(texts).size;
  const rows: BenchRow[] = [
    atMost(`jfk live final WER, PCM at real time (worst of ${RUNS} runs; file ${fileWer.toFixed(1)} %)`, Math.max(...wers), '%', limit),
    { name: `jfk live final texts over ${RUNS} PCM runs`, value: distinct, unit: 'distinct', target: '= 1', ok: distinct === 1 },
  ];
  // 32 kbit/s Opus at 48 kHz in WebM, as MediaRecorder makes it.
  const s16 = Buffer.from(toInt16(clip.audio.samples).buffer);
  const { stdout: webm } = await runFfmpeg(
    ['-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-f', 'webm', 'pipe:1'],
    s16,
    { ffmpegPath },
  );
  const durationMs = (clip.audio.samples.length / clip.audio.sampleRate) * 1000;
  const live = await liveWebm(registry, webm, durationMs, ffmpegPath);
  const { stdout: whole } = await runFfmpeg(['-i', 'pipe:0', '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'], webm, { ffmpegPath });
  const asFile = new Int16Array(whole.buffer, whole.byteOffset, whole.length >> 1);
  const fidelity = compare(asFile, live.pcm);
  // "The file WER of the same audio": the same WebM imported as a file. Opus at 32 kbit/s
  // changes what PocketSphinx hears, so the FLAC's file WER is printed beside it.
  const webmFileWer = await fileWerOf(registry, clip.text, asFile);
  const webmLive = wordErrorRate(clip.text, live.text) * 100;
  rows.push(
    { name: `jfk file WER of the same WebM/Opus 32 kbit/s (FLAC file ${fileWer.toFixed(1)} %)`, value: webmFileWer, unit: '%' },
    atMost(
      `jfk live final WER, WebM/Opus 32 kbit/s at real time (file of the same WebM ${webmFileWer.toFixed(1)} %)`,
      webmLive,
      '%',
      Number((webmFileWer * 1.1).toFixed(1)),
    ),
    {
      name: `live WebM decoder PCM vs the same WebM decoded as a file (${fidelity.lengthDiff} samples longer)`,
      value: fidelity.snrDb,
      unit: 'dB SNR',
      target: '>= 60',
      ok: fidelity.snrDb >= 60 && Math.abs(fidelity.lengthDiff) <= 160,
    },
  );
  return rows;
}
