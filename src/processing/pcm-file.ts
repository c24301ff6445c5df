/**
 * A recording decoded once to raw 16 kHz mono PCM on disk, read back in windows: long
 * recordings are recognized a window at a time, so a worker's memory does not grow with the
 * length of the audio (a 10-hour import is 1.15 GB on disk, about 40 MB in memory at a time).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { type AudioTools, PCM_SAMPLE_RATE as SAMPLE_RATE } from '../engines/audio/port.js';
import type { PcmAudio, PcmSource } from '../engines/types.js';

export const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;

/**
 * Decodes any input the audio tools read into `outPath` (s16le, 16 kHz, mono), streaming.
 * Past `maxBytes` of PCM it stops, removes the file and throws OutputLimitError.
 */
export async function decodeToPcmFile(
  audio: Pick<AudioTools, 'decodeToFile'>,
  input: string,
  outPath: string,
  o: { signal?: AbortSignal; maxBytes?: number } = {},
): Promise<PcmFile> {
  await audio.decodeToFile(input, outPath, { signal: o.signal, timeoutMs: 60 * 60_000, maxBytes: o.maxBytes });
  return new PcmFile(outPath);
}

export class PcmFile implements PcmSource {
  readonly sampleRate = SAMPLE_RATE;
  readonly durationMs: number;
  /** Size of the PCM on disk. */
  readonly bytes: number;

  constructor(readonly path: string) {
    const fd = openSync(path, 'r');
    try {
      this.bytes = fstatSync(fd).size - (fstatSync(fd).size % 2);
    } finally {
      closeSync(fd);
    }
    this.durationMs = Math.round(this.bytes / BYTES_PER_MS);
  }

  /** Samples from `startMs` for `lengthMs` (shorter at the end of the recording). */
  read(startMs: number, lengthMs: number): PcmAudio {
    const from = Math.min(this.bytes, Math.floor(startMs * BYTES_PER_MS) & ~1);
    const to = Math.min(this.bytes, from + (Math.floor(lengthMs * BYTES_PER_MS) & ~1));
    const buf = Buffer.alloc(to - from);
    const fd = openSync(this.path, 'r');
    try {
      let at = 0;
      while (at < buf.length) {
        const n = readSync(fd, buf, at, buf.length - at, from + at);
        if (n === 0) break;
        at += n;
      }
    } finally {
      closeSync(fd);
    }
    const samples = new Float32Array(buf.length >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = buf.readInt16LE(i * 2) / 32768;
    return { sampleRate: SAMPLE_RATE, samples };
  }
}

/** The quietest 100 ms (lowest energy) between `fromMs` and the end of `audio`: where a window is cut. */
export function quietestCutMs(audio: PcmAudio, fromMs: number): number {
  const frame = Math.round(audio.sampleRate / 10);
  const first = Math.floor((fromMs / 1000) * audio.sampleRate);
  let best = audio.samples.length;
  let bestEnergy = Number.POSITIVE_INFINITY;
  for (let start = first; start + frame <= audio.samples.length; start += frame) {
    let e = 0;
    for (let i = start; i < start + frame; i++) e += audio.samples[i]! * audio.samples[i]!;
    if (e < bestEnergy) {
      bestEnergy = e;
      best = start + (frame >> 1);
    }
  }
  return Math.round((best / audio.sampleRate) * 1000);
}
