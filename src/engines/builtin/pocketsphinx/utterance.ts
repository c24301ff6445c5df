/**
 * What the file and live recognizers share: sample conversion, the whole-utterance decode
 * (the file configuration: cepstral mean over the whole utterance, then the second pass) and
 * the audio kept for it.
 */
import { copyRange } from '../../audio/chunks.js';
import type { Word } from '../../types.js';
import type { DecoderPool } from './decoder-pool.js';
import type { PsDecoder, PsWord, Vocabulary } from './native.js';

export const RATE = 16_000;
const FRAME_MS = 10;
/** Audio kept on each side of a VAD segment (word onsets are soft). */
export const SEGMENT_PAD_MS = 300;

export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32767)));
  return out;
}

export function toFloat32(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}

export function wordsAt(words: PsWord[], offsetMs: number): Word[] {
  return words.map((w) => ({ text: w.word, startMs: offsetMs + w.startFrame * FRAME_MS, endMs: offsetMs + (w.endFrame + 1) * FRAME_MS }));
}

/**
 * Decodes one whole utterance at once, as a stream of its own. Given all its audio,
 * PocketSphinx normalizes the cepstra over the utterance (the model's `-cmn batch`) instead
 * of carrying a running estimate from earlier audio, and the new stream resets the noise
 * statistics and frame count: the same audio gives the same words on any decoder, after any
 * history. Word times are on the timeline of `offsetMs`.
 */
export async function decodeUtterance(decoder: PsDecoder, pcm: Int16Array, offsetMs: number): Promise<Word[]> {
  decoder.startStream();
  await decoder.startUtterance();
  await decoder.process(pcm, true);
  return wordsAt(await decoder.finish(pcm.length), offsetMs);
}

/**
 * The recent audio of a live stream (16 kHz s16), addressed by ms from the stream's start:
 * a final decodes its utterance's audio again from here. Callers drop what no utterance can
 * still need, so it holds at most one utterance and a little silence.
 */
export class AudioTail {
  private chunks: Int16Array[] = [];
  /** Sample position of chunks[0][0]. */
  private first = 0;
  private total = 0;

  push(pcm: Int16Array): void {
    this.chunks.push(pcm);
    this.total += pcm.length;
  }

  get startMs(): number {
    return (this.first / RATE) * 1000;
  }

  /** Samples in [fromMs, toMs), clamped to what is held. */
  slice(fromMs: number, toMs: number): Int16Array {
    const from = Math.max(this.first, Math.round((fromMs * RATE) / 1000));
    const to = Math.min(this.total, Math.round((toMs * RATE) / 1000));
    return copyRange(this.chunks, this.first, from, to, (n) => new Int16Array(n));
  }

  /** Forgets whole chunks that end before `ms`. */
  dropBefore(ms: number): void {
    const sample = Math.round((ms * RATE) / 1000);
    while (this.chunks.length && this.first + this.chunks[0]!.length <= sample) this.first += this.chunks.shift()!.length;
  }
}

/** Decodes `pcm` on a decoder of the pool's file configuration, taken for this utterance only. */
export async function decodeOnPool(pool: DecoderPool, pcm: Int16Array, offsetMs: number, vocabulary: Vocabulary): Promise<Word[]> {
  if (pcm.length === 0) return [];
  const decoder = await pool.acquire('file', undefined, vocabulary);
  try {
    return await decodeUtterance(decoder, pcm, offsetMs);
  } finally {
    pool.release(decoder);
  }
}

/** A stretch of speech the VAD found, in ms from the stream's start. */
export interface Speech {
  startMs: number;
  endMs: number;
}
