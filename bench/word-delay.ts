/**
 * Per-word delay (issue 14), shared by bench:realtime and bench:peers: for every word of every
 * final, the time it first appeared in any result of that sentence (interim or final) minus
 * the send time of the chunk that completed the audio ending it.
 *
 * "Appeared" is read two ways: aligned (the result's words are aligned to the final's by their
 * longest common subsequence, so an interim with one extra word in front still shows the
 * final's words after it) and by position (word k of the interim is word k of the final:
 * stricter, one inserted word hides every later one).
 *
 * Word end times come from a reference timeline: the file recognizer's words on the streamed
 * audio, in order. The finals' words, in order, are aligned to that timeline (longest common
 * subsequence over the whole stream); a final word with no counterpart in the timeline (an
 * inserted or misheard word) has no audio end and gets no delay. Where the finals are the
 * timeline's words (a live final is the file result of its audio), this is word k of the
 * finals = word k of the timeline.
 */

/** One result message as the client saw it: its sentence, words (normalized) and arrival (ms). */
export interface Seen {
  sid: number;
  final: boolean;
  words: string[];
  at: number;
}

/** A word of the reference timeline: normalized text and its end in the stream (ms). */
export interface TimedWord {
  word: string;
  endMs: number;
}

/** Pairs (i, j) of a longest common subsequence of `a` and `b`, in order. */
function lcsPairs(a: string[], b: string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** Indexes of the final's words that the interim shows, matched by alignment (longest common subsequence). */
export function alignedIndexes(interim: string[], final: string[]): Set<number> {
  return new Set(lcsPairs(interim, final).map(([, j]) => j));
}

/** Indexes k where the interim's word k is the final's word k. */
export function samePositions(interim: string[], final: string[]): Set<number> {
  return new Set(final.flatMap((w, k) => (interim[k] === w ? [k] : [])));
}

/**
 * Per-word delays (ms) of one session: `seen` in arrival order, `sentAt[i]` the send time of
 * the chunk ending at (i + 1) * chunkMs of audio, `timeline` the reference words of the whole
 * stream. Delays of words that no interim showed (first shown by their final) are also pushed
 * to `onlyByFinal`.
 */
export function wordDelays(
  seen: Seen[],
  sentAt: number[],
  chunkMs: number,
  timeline: TimedWord[],
  match: (interim: string[], final: string[]) => Set<number>,
  onlyByFinal: number[] = [],
  trace?: (word: string, delayMs: number, byFinal: boolean) => void,
): number[] {
  const finals = seen.filter((r) => r.final);
  const finalWords = finals.flatMap((f) => f.words);
  const endOf = new Map<number, number>(); // index into finalWords -> end (ms) in the stream
  for (const [i, j] of lcsPairs(
    finalWords,
    timeline.map((t) => t.word),
  ))
    endOf.set(i, timeline[j]!.endMs);
  const delays: number[] = [];
  let offset = 0; // index of this final's first word in finalWords
  for (const f of finals) {
    const first = new Map<number, number>();
    const byInterim = new Set<number>();
    for (const r of seen) {
      if (r.sid !== f.sid || r.at > f.at) continue;
      for (const k of match(r.words, f.words)) {
        if (!first.has(k)) first.set(k, r.at);
        if (!r.final) byInterim.add(k);
      }
    }
    for (const k of f.words.keys()) {
      const endMs = endOf.get(offset + k);
      const sent = endMs === undefined ? undefined : sentAt[Math.ceil(endMs / chunkMs) - 1];
      const at = first.get(k);
      if (sent === undefined || at === undefined) continue;
      delays.push(at - sent);
      if (!byInterim.has(k)) onlyByFinal.push(at - sent);
      trace?.(f.words[k]!, at - sent, !byInterim.has(k));
    }
    offset += f.words.length;
  }
  return delays;
}

/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
