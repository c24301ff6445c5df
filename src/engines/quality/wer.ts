/**
 * Word error rate: (substitutions + deletions + insertions) / reference words, from the
 * word-level Levenshtein alignment (each error costs 1). Normalization, the same for
 * reference and hypothesis: lowercase (Unicode), every character that is not a letter, a
 * digit, an apostrophe or white space becomes a space ("Americans," -> "americans",
 * "don't" stays), then split on white space, then the spelling equivalences below. Numbers
 * are not spelled out. Used by tests and the engine benchmark; bench:engines checks it
 * against NIST sclite on the same normalized text (bench/engines/sclite.ts).
 */

/**
 * Written and spoken forms of one word that scoring counts as the same, like the global
 * mapping (GLM) files of NIST's scoring setups: each maps to the spoken form. Only forms
 * with a single reading are listed: "mr" is always "mister", whereas "st" (saint or street)
 * or "dr" (doctor or drive) are not. The CMU dictionary and the en-us language model spell
 * titles as abbreviations ("mr"), the LibriVox transcripts spell them out ("mister"): without
 * this, a right word counts as an error.
 */
export const SPELLING_EQUIVALENCES: Readonly<Record<string, string>> = {
  mr: 'mister',
  mrs: 'missus',
  ok: 'okay',
};

export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SPELLING_EQUIVALENCES[w] ?? w);
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  return errorRate(normalizeWords(reference), normalizeWords(hypothesis));
}

/**
 * Character error rate, for languages written without spaces (Japanese, Chinese), where a WER
 * would count a whole sentence as one word: the same alignment over characters, after NFKC
 * normalization (full-width letters and digits become ASCII) keeping only letters and digits.
 */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const chars = (text: string) => [
    ...text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, ''),
  ];
  return errorRate(chars(reference), chars(hypothesis));
}

/** Edit distance of the hypothesis tokens from the reference tokens, over the reference's length. */
function errorRate(r: string[], h: string[]): number {
  if (r.length === 0) return h.length === 0 ? 0 : 1;
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[h.length]! / r.length;
}
