/**
 * The project's WER (src/engines/quality/wer.ts): normalization, the spelling equivalences
 * (a GLM-like list), and agreement with NIST sclite on the same normalized text when sctk is
 * installed; the character error rate for Japanese.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scliteWer } from '../../bench/engines/sclite.js';
import { characterErrorRate, normalizeWords, SPELLING_EQUIVALENCES, wordErrorRate } from '../../src/engines/quality/wer.js';

describe('word error rate', () => {
  it('lowercases, drops punctuation but apostrophes, splits hyphens', () => {
    expect(normalizeWords("And so, my fellow Americans: cold-hearted; don't!")).toEqual([
      'and',
      'so',
      'my',
      'fellow',
      'americans',
      'cold',
      'hearted',
      "don't",
    ]);
  });

  it('counts written and spoken forms of one word as the same, on both sides; ambiguous abbreviations stay', () => {
    expect(normalizeWords('Mr. Dashwood and Mrs. Jennings, OK')).toEqual(['mister', 'dashwood', 'and', 'missus', 'jennings', 'okay']);
    expect(wordErrorRate('and mister john dashwood', 'and mr john dashwood')).toBe(0);
    expect(wordErrorRate('and mr john dashwood', 'and mister john dashwood')).toBe(0);
    expect(normalizeWords('St. Paul on Elm St, Dr. Who')).toEqual(['st', 'paul', 'on', 'elm', 'st', 'dr', 'who']);
    expect(Object.keys(SPELLING_EQUIVALENCES)).not.toContain('st');
  });

  it('substitutions, deletions and insertions each cost one error per reference word', () => {
    expect(wordErrorRate('ask not what your country', 'ask what your county can')).toBeCloseTo(3 / 5);
    expect(wordErrorRate('', '')).toBe(0);
    expect(wordErrorRate('', 'noise')).toBe(1);
  });

  const sctk = ['/usr/bin/sctk', '/usr/lib/sctk/bin/sclite'].some((p) => existsSync(p));
  it.skipIf(!sctk)('agrees with NIST sclite on the same normalized pairs (equivalences applied to both)', () => {
    const pairs = [
      { reference: 'and mister john dashwood had then leisure', hypothesis: 'and mr john guess would have been at leisure' },
      { reference: 'he was not an ill disposed young man', hypothesis: 'he was not until this blows young man' },
      { reference: 'ask not what your country can do for you', hypothesis: 'and not what your country can do for you' },
    ];
    let errors = 0;
    let words = 0;
    for (const p of pairs) {
      const n = normalizeWords(p.reference).length;
      errors += wordErrorRate(p.reference, p.hypothesis) * n;
      words += n;
    }
    expect(scliteWer(pairs)).toBeCloseTo((errors / words) * 100, 1);
  });
});

describe('character error rate (languages without spaces)', () => {
  it('aligns characters, ignoring punctuation, spaces and full/half width', () => {
    expect(characterErrorRate('会議は午後から始まります。', '会議は午後から始まります')).toBe(0);
    expect(characterErrorRate('ＡＩの会議、３時', 'AIの会議 3時')).toBe(0);
    // One substitution (三 heard as 3) over nine characters.
    expect(characterErrorRate('午後三時から始まる', '午後3時から始まる')).toBeCloseTo(1 / 9);
    // A WER would count the whole sentence as one wrong word.
    expect(wordErrorRate('午後三時から始まる', '午後3時から始まる')).toBe(1);
    expect(characterErrorRate('', '')).toBe(0);
    expect(characterErrorRate('。', 'あ')).toBe(1);
  });
});
