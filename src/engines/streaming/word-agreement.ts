/** How consecutive passes over a growing utterance agree on its words (over-file.ts commits what they agree on). */
import type { FileTranscript, Word } from '../types.js';

/** Words compared loosely: two passes agreeing on "Country," and "country" agree. */
const comparable = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

/** How many leading words two hypotheses share. */
export function agreedPrefixLength(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && comparable(a[n]!) === comparable(b[n]!)) n++;
  return n;
}

/**
 * Where a pass's `words` go on after the words already `stable`. The stable words are aligned to
 * the pass (longest common subsequence); the pass goes on after the last one it holds, and after
 * as many characters again as the stable words it spells differently at their end ("Dashwood" /
 * "Dash wood", "ill-disposed" / "ill-sposed"): so one disagreement does not hold back every later
 * word until the final, nor repeat a word. null: the pass holds fewer than half of the stable
 * words (it is another text).
 */
export function continuationIndex(stable: readonly string[], words: readonly string[]): number | null {
  if (stable.length === 0) return 0;
  const a = stable.map(comparable);
  const b = words.map(comparable);
  // lcs[i][j]: longest common subsequence of a[0..i) and b[0..j)
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      lcs[i]![j] = a[i - 1] === b[j - 1] ? lcs[i - 1]![j - 1]! + 1 : Math.max(lcs[i - 1]![j]!, lcs[i]![j - 1]!);
  const best = lcs[a.length]![b.length]!;
  if (best * 2 < a.length) return null;
  let j = lcs[a.length]!.indexOf(best);
  let held = a.length; // the stable words after the last one the pass holds start here
  while (held > 0 && lcs[held - 1]![b.length] === best) held--;
  let unmatchedChars = a.slice(held).reduce((n, w) => n + w.length, 0);
  while (j < b.length && unmatchedChars >= b[j]!.length / 2) {
    unmatchedChars -= b[j]!.length;
    j++;
  }
  return j;
}

/** A pass's words on the stream's clock (the pass began `offsetMs` into it). */
export function shiftWords(t: FileTranscript, offsetMs: number): Word[] {
  return t.segments.flatMap((s) => s.words).map((w) => ({ ...w, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs }));
}

/**
 * The tentative tail of an interim: a pass's words from `start` on (after those that continue the
 * stable ones), as far as they end by `limitMs` (the guard before the end of the audio, by the
 * recognizer's word times; without them, all but the last word).
 */
export function tentativeTail(t: FileTranscript, words: string[], start: number, limitMs: number): string[] {
  const timed = t.segments.flatMap((s) => s.words);
  let end = words.length - 1;
  if (timed.length === words.length) {
    end = 0;
    while (end < words.length && timed[end]!.endMs <= limitMs) end++;
  }
  return words.slice(start, Math.max(start, end));
}
