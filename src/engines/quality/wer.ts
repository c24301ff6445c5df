/**
 * Word error rate: (substitutions + deletions + insertions) / reference words, from the
 * word-level Levenshtein alignment (each error costs 1). Normalization, the same for
 * reference and hypothesis: lowercase (Unicode), every character that is not a letter, a
 * digit, an apostrophe or white space becomes a space ("Americans," -> "americans",
 * "don't" stays), then split on white space. Numbers are not spelled out. Used by tests and
 * the engine benchmark; bench:engines checks it against NIST sclite on the same text
 * (bench/engines/sclite.ts).
 */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  const r = normalizeWords(reference);
  const h = normalizeWords(hypothesis);
  if (r.length === 0) return h.length === 0 ? 0 : 1;
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[h.length]! / r.length;
}
