/**
 * Live (online) diarization on neural speaker embeddings (the neural diarizer's CAM++ model),
 * in bounded memory: the audio of the utterance in progress (LiveAudioBuffer), and per speaker
 * one centroid (the sum of its pieces' unit embeddings, 192 floats) and a count.
 *
 * - `current(from, to)`: the speaker of the latest audio, for interim results: the last
 *   LOOKBACK_MS of the utterance so far is embedded and matched; nothing is learnt.
 * - `commit(from, to)`: a finished utterance. It is cut at speaker changes (`split`), each piece
 *   embedded and matched in order: to the most similar voice when the cosine similarity reaches
 *   `threshold`, else to a new speaker when the piece is long enough to stand as a person of its
 *   own, else to the most similar voice for now (tentative). Matched voices learn the piece.
 * - Tentative pieces (the latest MAX_TENTATIVE) are judged again after each commit: once a
 *   voice is similar enough, it learns the piece, and when that voice is another than the one
 *   said, `corrections()` reports it (the session relabels the earlier final), as the classic
 *   online diarizer does.
 *
 * Cutting an utterance at speaker changes (`split`): 'windows' compares embeddings of 1 s
 * windows on each side of every 250 ms point (speaker-changes.ts); 'none' embeds the utterance
 * whole. Measured on bench:diarizer's recordings (docs/diarization.md), the windows found the
 * turns inside utterances that both 'none' and the classic diarizer's MFCC change detection
 * (tried, no better than 'none' there) missed, for about twice the CPU.
 */

import { LiveAudioBuffer } from '../streaming/live-audio-buffer.js';
import type { LiveDiarization, SpeakerCorrection, SpeakerPiece } from '../types.js';
import { type EmbeddedWindow, HOP_MS, splitAtEmbeddingChanges, WINDOW_MS } from './speaker-changes.js';

/** A speaker embedding of 16 kHz samples (any length norm), or null when the audio is too short for the model. */
export type Embed = (samples: Float32Array) => Float32Array | null;

export interface EmbeddingLiveOptions {
  /** Cosine similarity from which a piece is a known voice. */
  threshold: number;
  /** How an utterance is cut at speaker changes: embedded windows (speaker-changes.ts), or not at all. */
  split: 'windows' | 'none';
  /** 'windows': cosine similarity of neighbouring windows below which the voice changed. */
  changeBelow: number;
}

/** Chosen on bench:diarizer's recordings (docs/diarization.md): tuned and measured on the same few, so indicative. */
export const DEFAULT_LIVE_EMBEDDING: EmbeddingLiveOptions = { threshold: 0.4, split: 'windows', changeBelow: 0.5 };

const SAMPLES_PER_MS = 16;
/** Audio kept for the utterance in progress (a longer utterance is judged on its last part). */
const MAX_BUFFER_MS = 30_000;
/** Interim labelling embeds this much of the utterance so far. */
const LOOKBACK_MS = 3_000;
/** Speech a piece needs to be judged at all (shorter ones take the neighbouring speaker). */
const MIN_JUDGED_MS = 500;
/** Speech a piece needs to become a new speaker. */
const MIN_NEW_SPEAKER_MS = 1_200;
/** Speakers one session tells apart; beyond, pieces go to the most similar known voice. */
const MAX_SPEAKERS = 16;
/** Tentative pieces judged again (older ones keep the speaker they were given). */
const MAX_TENTATIVE = 8;

interface Voice {
  id: string;
  /** Sum of the learnt pieces' unit embeddings: its direction is the centroid. */
  sum: Float32Array;
  count: number;
}

interface Piece {
  startMs: number;
  endMs: number;
  /** Unit embedding; null when too short to judge. */
  embedding: Float32Array | null;
}

interface Tentative extends Piece {
  embedding: Float32Array;
  speakerId: string;
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return Float32Array.from(v, (x) => x / n);
}

/** Cosine similarity of a unit vector with a voice's centroid. */
function similarity(e: Float32Array, v: Voice): number {
  let dot = 0;
  let n = 0;
  for (let i = 0; i < e.length; i++) {
    dot += (e[i] as number) * (v.sum[i] as number);
    n += (v.sum[i] as number) ** 2;
  }
  return dot / (Math.sqrt(n) || 1);
}

export class EmbeddingLiveDiarizer implements LiveDiarization {
  private readonly audio = new LiveAudioBuffer(MAX_BUFFER_MS);
  private readonly voices: Voice[] = [];
  private tentative: Tentative[] = [];
  private revised: SpeakerCorrection[] = [];
  /** Window embeddings of the held audio by grid index (window [k * HOP_MS, k * HOP_MS + WINDOW_MS)). */
  private readonly windows = new Map<number, Float32Array | null>();

  constructor(
    private readonly embed: Embed,
    private readonly options: EmbeddingLiveOptions = DEFAULT_LIVE_EMBEDDING,
  ) {}

  get speakers(): number {
    return this.voices.length;
  }

  /** Bytes held: the audio buffer, the centroids and the tentative pieces (bounded whatever the session's length). */
  get heldBytes(): number {
    const dim = this.voices[0]?.sum.length ?? 192;
    return this.audio.byteLength + (this.voices.length + this.tentative.length + this.windows.size) * (dim * 4 + 64);
  }

  write(pcm: Int16Array): void {
    this.audio.write(pcm);
  }

  current(fromMs: number, toMs: number): string | null {
    const from = Math.max(fromMs, toMs - LOOKBACK_MS);
    const { samples, startMs } = this.audio.slice(from, toMs);
    if (samples.length < MIN_JUDGED_MS * SAMPLES_PER_MS) return this.voices.length === 1 ? (this.voices[0] as Voice).id : null;
    // The utterance's windows so far, embedded now so that the final finds most of them ready.
    if (this.options.split === 'windows') this.windowsIn(fromMs, toMs);
    const piece = { startMs, endMs: startMs + samples.length / SAMPLES_PER_MS, embedding: this.embedding(samples) };
    return this.match([...this.voices], [piece]).at(-1)?.speakerId ?? null;
  }

  commit(fromMs: number, toMs: number): SpeakerPiece[] {
    const pieces = this.pieces(fromMs, toMs);
    const earlier = this.tentative;
    this.tentative = [];
    const out = this.match(this.voices, pieces, true);
    this.revise(earlier);
    this.audio.release(toMs);
    for (const k of this.windows.keys()) if (k * HOP_MS < toMs) this.windows.delete(k);
    return out;
  }

  corrections(): SpeakerCorrection[] {
    const out = this.revised;
    this.revised = [];
    return out;
  }

  private embedding(samples: Float32Array): Float32Array | null {
    if (samples.length < MIN_JUDGED_MS * SAMPLES_PER_MS) return null;
    const e = this.embed(samples);
    return e ? unit(e) : null;
  }

  /** [fromMs, toMs) of the buffer cut at speaker changes, each piece with its embedding. */
  private pieces(fromMs: number, toMs: number): Piece[] {
    const { samples, startMs } = this.audio.slice(fromMs, toMs);
    if (samples.length < MIN_JUDGED_MS * SAMPLES_PER_MS) return [];
    const endMs = startMs + samples.length / SAMPLES_PER_MS;
    const ranges: Array<[number, number]> =
      this.options.split === 'windows'
        ? splitAtEmbeddingChanges(this.windowsIn(startMs, endMs), startMs, endMs, this.options.changeBelow)
        : [[startMs, endMs]];
    return ranges.map(([from, to]) => ({
      startMs: from,
      endMs: to,
      embedding: this.embedding(
        samples.subarray(Math.round((from - startMs) * SAMPLES_PER_MS), Math.round((to - startMs) * SAMPLES_PER_MS)),
      ),
    }));
  }

  /** The grid windows inside [fromMs, toMs) with their embeddings, each embedded once (kept until its audio is released). */
  private windowsIn(fromMs: number, toMs: number): EmbeddedWindow[] {
    // Windows of audio no longer held (an utterance longer than the buffer) go: memory stays bounded.
    const held = this.audio.heldFromMs;
    for (const k of this.windows.keys()) if (k * HOP_MS < held) this.windows.delete(k);
    const out: EmbeddedWindow[] = [];
    for (let k = Math.ceil(Math.max(fromMs, held) / HOP_MS); k * HOP_MS + WINDOW_MS <= toMs; k++) {
      if (!this.windows.has(k)) {
        const { samples } = this.audio.slice(k * HOP_MS, k * HOP_MS + WINDOW_MS);
        this.windows.set(k, samples.length === WINDOW_MS * SAMPLES_PER_MS ? this.embedding(samples) : null);
      }
      out.push({ atMs: k * HOP_MS, embedding: this.windows.get(k) ?? null });
    }
    return out;
  }

  private closest(voices: readonly Voice[], e: Float32Array): { voice: Voice | null; sim: number } {
    let voice: Voice | null = null;
    let sim = Number.NEGATIVE_INFINITY;
    for (const v of voices) {
      const s = similarity(e, v);
      if (s > sim) [voice, sim] = [v, s];
    }
    return { voice, sim };
  }

  /** The voice with the piece learnt, in place of the old one (callers that only look pass a copy of the list). */
  private learn(voices: Voice[], v: Voice, e: Float32Array): void {
    voices[voices.indexOf(v)] = { id: v.id, sum: Float32Array.from(v.sum, (x, i) => x + (e[i] as number)), count: v.count + 1 };
  }

  /** Tentative pieces of earlier commits that a voice now claims: learnt, and reported when relabelled. */
  private revise(earlier: Tentative[]): void {
    const still: Tentative[] = [];
    for (const t of earlier) {
      const { voice, sim } = this.closest(this.voices, t.embedding);
      if (!voice || sim < this.options.threshold) {
        still.push(t);
        continue;
      }
      this.learn(this.voices, voice, t.embedding);
      if (voice.id !== t.speakerId)
        this.revised.push({
          startMs: Math.round(t.startMs),
          endMs: Math.round(t.endMs),
          speakerId: voice.id,
          previousSpeakerId: t.speakerId,
        });
    }
    this.tentative = [...still, ...this.tentative].slice(-MAX_TENTATIVE);
  }

  /** Speakers of pieces in time order, learnt into `voices`. Pieces too short to judge take the previous piece's speaker (or the next's). */
  private match(voices: Voice[], pieces: readonly Piece[], committing = false): SpeakerPiece[] {
    const ids: Array<string | null> = pieces.map((p) => {
      const e = p.embedding;
      if (!e) return null;
      const { voice: best, sim } = this.closest(voices, e);
      const unlike = sim < this.options.threshold;
      if (!best || (unlike && p.endMs - p.startMs >= MIN_NEW_SPEAKER_MS && voices.length < MAX_SPEAKERS)) {
        const v = { id: String(voices.length + 1), sum: e, count: 1 };
        voices.push(v);
        return v.id;
      }
      // Unlike every voice but too short to stand alone: the most similar for now, judged again later.
      if (unlike && voices.length < MAX_SPEAKERS) {
        if (committing) this.tentative.push({ startMs: p.startMs, endMs: p.endMs, embedding: e, speakerId: best.id });
        return best.id;
      }
      this.learn(voices, best, e);
      return best.id;
    });
    for (let i = 0; i < ids.length; i++) ids[i] ??= ids[i - 1] ?? null;
    for (let i = ids.length - 1; i >= 0; i--) ids[i] ??= ids[i + 1] ?? null;
    const out: SpeakerPiece[] = [];
    pieces.forEach((p, i) => {
      const speakerId = ids[i] ?? voices[0]?.id ?? '1';
      const last = out.at(-1);
      if (last && last.speakerId === speakerId) last.endMs = Math.round(p.endMs);
      else out.push({ startMs: Math.round(p.startMs), endMs: Math.round(p.endMs), speakerId });
    });
    return out;
  }
}
