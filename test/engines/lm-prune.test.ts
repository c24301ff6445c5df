/**
 * The cut language model of live stream decoders (lm-prune.ts, stream-model.ts): a proper
 * backoff model over its vocabulary, on a small model worked by hand and on the real one
 * through PocketSphinx's own library.
 */
import { existsSync, statSync } from 'node:fs';
import koffi from 'koffi';
import { describe, expect, it } from 'vitest';
import { silenceSphinxLog } from '../../src/engines/builtin/pocketsphinx/libraries.js';
import { type NgramTables, pruneToArpa } from '../../src/engines/builtin/pocketsphinx/lm-prune.js';
import { MODEL_DIR, modelsInstalled } from '../../src/engines/builtin/pocketsphinx/native.js';
import { streamModel } from '../../src/engines/builtin/pocketsphinx/stream-model.js';

/** Reads ARPA text into maps of log10 probabilities and backoffs keyed by the space-joined words. */
function parseArpa(text: string) {
  const prob = new Map<string, number>();
  const bo = new Map<string, number>();
  let order = 0;
  for (const line of text.split('\n')) {
    const m = /^\\(\d)-grams:$/.exec(line);
    if (m) {
      order = Number(m[1]);
      continue;
    }
    if (!order || !line.trim() || line.startsWith('\\')) continue;
    const f = line.split('\t');
    const words = f[1]!;
    expect(words.split(' ')).toHaveLength(order);
    prob.set(words, Number(f[0]));
    if (f[2] !== undefined) bo.set(words, Number(f[2]));
  }
  /** log10 P(w | history) by backing off. */
  const score = (history: string[], w: string): number => {
    const key = [...history, w].join(' ');
    const p = prob.get(key);
    if (p !== undefined) return p;
    if (history.length === 0) return -99;
    return (bo.get(history.join(' ')) ?? 0) + score(history.slice(1), w);
  };
  return { prob, bo, score };
}

const toy: NgramTables = {
  words: ['</s>', '<s>', 'a', 'b', 'c'],
  unigramProb: Float64Array.from([-1, -99, -0.5, -0.7, -1.2]),
  unigramBackoff: Float64Array.from([0, -0.3, -0.2, -0.25, -0.1]),
  bigrams: Uint32Array.from([2, 3, 2, 4, 3, 2, 1, 2, 2, 0]),
  bigramProb: Float64Array.from([-0.3, -0.9, -0.2, -0.4, -0.8]),
  bigramBackoff: Float64Array.from([-0.15, 0, -0.1, -0.2, 0]),
  trigrams: Uint32Array.from([1, 2, 3, 2, 3, 2]),
  trigramProb: Float64Array.from([-0.1, -0.05]),
};

describe('pruning a language model to a vocabulary', () => {
  it('drops the words past the vocabulary and every n-gram with them', () => {
    const { arpa, counts } = pruneToArpa(toy, { vocabulary: 2, threshold: 0 });
    expect(counts).toEqual({ unigrams: 4, bigrams: 4, trigrams: 2 });
    expect(arpa).toContain('ngram 1=4\nngram 2=4\nngram 3=2');
    expect(arpa).not.toMatch(/\bc\b/);
  });

  it('recomputes backoffs so that every context sums to one over the new vocabulary', () => {
    const lm = parseArpa(pruneToArpa(toy, { vocabulary: 2, threshold: 0 }).arpa);
    const vocabulary = ['</s>', 'a', 'b'];
    for (const history of [[], ['a'], ['b'], ['<s>'], ['<s>', 'a'], ['a', 'b'], ['b', 'a']]) {
      const total = vocabulary.reduce((sum, w) => sum + 10 ** lm.score(history, w), 0);
      expect(total, `context "${history.join(' ')}"`).toBeCloseTo(1, 3);
    }
  });

  it('drops n-grams that add little over backing off, keeping the contexts and suffixes of those kept', () => {
    // Weights P(h) P(w|h) |log10 P(w|h) - log10 of backing off| (P(<s>) taken as P(</s>)):
    // "a b a" 0.042, "<s> a b" 0.013; "a b" 0.095, "b a" 0.069, "a c" 0.020, "a </s>" 0.020, "<s> a" 0.016.
    const { arpa, counts } = pruneToArpa(toy, { vocabulary: 3, threshold: 0.03 });
    const lm = parseArpa(arpa);
    expect([...lm.prob.keys()].filter((k) => k.includes(' ')).sort()).toEqual(['a b', 'a b a', 'b a']);
    expect(counts).toEqual({ unigrams: 5, bigrams: 2, trigrams: 1 });
    for (const history of [[], ['a'], ['b'], ['<s>'], ['a', 'b'], ['<s>', 'a']]) {
      const total = ['</s>', 'a', 'b', 'c'].reduce((sum, w) => sum + 10 ** lm.score(history, w), 0);
      expect(total, `context "${history.join(' ')}"`).toBeCloseTo(1, 3);
    }
  });
});

describe.skipIf(!modelsInstalled())('the stream model cut from en-us', () => {
  it('is under a third of the full model, with 15,000 words, and normalized as the library scores it', () => {
    const model = streamModel(MODEL_DIR, 15_000);
    silenceSphinxLog();
    expect(statSync(model.lm).size).toBeLessThan(statSync(`${MODEL_DIR}/en-us.lm.bin`).size / 3);
    expect(existsSync(model.dict)).toBe(true);
    const sb = koffi.load('libsphinxbase.so.3');
    const lmath = sb.func('void *logmath_init(double, int, int)')(1.0001, 0, 0);
    const lm = sb.func('void *ngram_model_read(void *, const char *, int, void *)')(null, model.lm, 0, lmath);
    const counts = sb.func('uint32_t *ngram_model_get_counts(void *)');
    const wid = sb.func('int ngram_wid(void *, const char *)');
    const word = sb.func('const char *ngram_word(void *, int)');
    const prob = sb.func('int ngram_ng_prob(void *, int, int *, int, _Out_ int *)');
    const free = sb.func('int ngram_model_free(void *)');
    try {
      const n = (koffi.decode(counts(lm), 'uint32', 3) as Uint32Array)[0]!;
      expect(n).toBe(15_002); // with <s> and </s>
      for (const history of [[], ['the'], ['of', 'the']]) {
        const ids = history.map((w) => wid(lm, w) as number).reverse(); // most recent word first
        let total = 0;
        for (let w = 0; w < n; w++) if (word(lm, w) !== '<s>') total += 1.0001 ** (prob(lm, w, ids, ids.length, [0]) as number);
        expect(total, `context "${history.join(' ')}"`).toBeGreaterThan(0.97);
        expect(total, `context "${history.join(' ')}"`).toBeLessThan(1.03);
      }
    } finally {
      free(lm);
    }
  }, 60_000);
});
