/**
 * The interim text of one utterance, built from its draft passes (LocalAgreement, as
 * whisper_streaming does it): the words two consecutive passes agree on after the stable ones
 * become stable and never change; the latest pass's further words are shown after them as a
 * tentative tail, which the next pass may revise.
 *
 * Where a pass goes on after the stable words is found by their text (`continuationIndex`),
 * or, when the pass reads the stable words' audio another way, by time: after the audio the
 * stable words covered. A misheard start otherwise froze the interim until the final: tiny.en
 * drafted "how do you marry the" for the first second of "Had he married a more amiable woman
 * he might have been made still more respectable than he was"; every later pass was "another
 * text" by the words, so nothing more was shown for 5 s (bench:peers, session 20: all 16 of the
 * 92 words first shown by their final were that sentence's, 1.4-6.5 s after they were said).
 */
import type { FileTranscript, Word } from '../speech-types.js';
import { agreedPrefixLength, continuationIndex, tentativeTail } from './word-agreement.js';

export interface InterimTextOptions {
  /** Show the latest pass's words after the stable ones (see OverFileOptions.tentativeTail). */
  tentativeTail: boolean;
  /** Tail words ending in the last this-many ms of a pass's audio are left out (cut mid-word). */
  tailGuardMs: number;
}

export class InterimText {
  private readonly stable: string[] = [];
  /** End (ms, on the pass's clock: the utterance's) of the last stable word, when the pass that made it stable timed its words. */
  private stableEndMs: number | undefined;
  /** The last pass's words after the stable ones; null: it did not go on after them. */
  private pending: string[] | null = [];
  /** Their ends (ms) where that pass timed them. */
  private pendingEnds: Array<number | undefined> = [];

  constructor(private readonly options: InterimTextOptions) {}

  /** The text to show after a pass over the utterance's first `audioMs`. */
  add(t: FileTranscript, audioMs: number): string {
    const words = t.text.trim().split(/\s+/).filter(Boolean);
    const times = timesOf(t, words);
    const from =
      continuationIndex(this.stable, words) ??
      (times && this.stableEndMs !== undefined ? continuationAfter(times, this.stableEndMs) : null);
    let agreed = 0;
    if (from !== null && this.pending !== null) {
      agreed = agreedPrefixLength(this.pending, words.slice(from));
      if (agreed > 0) {
        this.stable.push(...words.slice(from, from + agreed));
        // By this pass's times, else the pass before's (Whisper leaves a pass's last words
        // untimed at times); unknown: no continuation by time until a timed word is stable.
        this.stableEndMs = times?.[from + agreed - 1]?.endMs ?? this.pendingEnds[agreed - 1];
      }
    }
    if (from === null) {
      this.pending = null;
      this.pendingEnds = [];
    } else {
      const next = from + agreed;
      this.pending = words.slice(next);
      this.pendingEnds = this.pending.map((_, i) => times?.[next + i]?.endMs);
    }
    const tail =
      from === null || !this.options.tentativeTail ? [] : tentativeTail(t, words, from + agreed, audioMs - this.options.tailGuardMs);
    return [...this.stable, ...tail].join(' ');
  }
}

/**
 * A pass's word times, index for index with its words, or null. Whisper may leave the last word
 * or two of a pass untimed (one cut at the end of the audio: 10 times for "... he might have
 * been..."), so times that cover the words' beginning do.
 */
function timesOf(t: FileTranscript, words: readonly string[]): readonly Word[] | null {
  const timed = t.segments.flatMap((s) => s.words);
  if (timed.length === 0 || timed.length > words.length) return null;
  return timed.every((w, i) => w.text.trim() === words[i]) ? timed : null;
}

/**
 * Index of the first of a pass's timed words that lies after `endMs` (its middle at or after
 * it: the word the stable words ended with, read another way, may end a little later), or the
 * number of timed words when none does (untimed words follow them).
 */
export function continuationAfter(words: readonly Word[], endMs: number): number {
  const i = words.findIndex((w) => (w.startMs + w.endMs) / 2 >= endMs);
  return i < 0 ? words.length : i;
}
