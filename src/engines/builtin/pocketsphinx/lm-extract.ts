/**
 * Reads every n-gram of a PocketSphinx trigram model in its binary (trie) format, through the
 * library itself: sphinxbase has no public iterator in this version and its ARPA writer
 * aborts on the en-us model (an assertion on the bigram count: the trie holds 6 bigrams
 * fewer than its header says). So the model is read with `ngram_model_read` and its trie
 * walked with the exported `lm_trie_fill_raw_ngram`, the function that writer uses.
 *
 * Struct layouts are Debian's libsphinxbase3 0.8+5prealpha (x86-64 and arm64 alike):
 * - ngram_model_t: n_counts (uint32 *) at 8, n (uint8) at 24, lmath at 32, word_str
 *   (char **) at 56; 96 bytes; ngram_model_trie_t puts its lm_trie_t * right after.
 * - lm_trie_t: unigrams (unigram_t *: float prob, float bo, uint32 next) at 16.
 * - ngram_raw_t: uint32 *words, float prob, float backoff, uint32 order (24 bytes).
 * The counts read back are checked against the header (order 3, sizes), so a library with
 * another layout fails here, loudly, instead of giving a wrong model.
 */
import koffi from 'koffi';
import { LM_FORMAT, nativeLibrary, withLanguageModel } from './libraries.js';
import type { NgramTables } from './lm-prune.js';

const RAW_NGRAM_BYTES = 24;

/** lm_trie_fill_raw_ngram, declared once per process (koffi refuses a type name twice). */
let fillRawNgrams: ReturnType<ReturnType<typeof nativeLibrary>['func']> | null = null;

function trieWalker() {
  if (!fillRawNgrams) {
    koffi.struct('parley_node_range_t', { begin: 'uint32', end: 'uint32' });
    fillRawNgrams = nativeLibrary('libsphinxbase.so.3').func(
      'void lm_trie_fill_raw_ngram(void *, void *, _Inout_ uint32_t *, uint32_t *, parley_node_range_t, uint32_t *, int, int, int)',
    );
  }
  return fillRawNgrams;
}

export function extractTrigramModel(lmPath: string): NgramTables {
  const sb = nativeLibrary('libsphinxbase.so.3');
  const toLog10 = sb.func('double logmath_log_float_to_log10(void *, float)');
  const fill = trieWalker();
  const libcFree = nativeLibrary('libc.so.6').func('void free(void *)');
  return withLanguageModel(lmPath, LM_FORMAT.binary, (lm, lmath) => {
    const order = koffi.decode(lm, 24, 'uint8') as number;
    if (order !== 3) throw new Error(`expected a trigram model, got order ${order}`);
    const counts = Uint32Array.from(koffi.decode(koffi.decode(lm, 8, 'void *'), 'uint32', 3) as ArrayLike<number>);
    const words = koffi.decode(koffi.decode(lm, 56, 'void *'), 'char *', counts[0]!) as string[];
    const trie = koffi.decode(lm, 96, 'void *');
    const unigrams = koffi.decode(koffi.decode(trie, 16, 'void *'), 'float', counts[0]! * 3) as Float32Array;
    const log10 = (x: number) => toLog10(lmath, x) as number;
    const unigramProb = new Float64Array(counts[0]!);
    const unigramBackoff = new Float64Array(counts[0]!);
    for (let w = 0; w < counts[0]!; w++) {
      unigramProb[w] = log10(unigrams[3 * w]!);
      unigramBackoff[w] = log10(unigrams[3 * w + 1]!);
    }
    const level = (n: 2 | 3) => {
      const expected = counts[n - 1]!;
      const raw = Buffer.alloc(RAW_NGRAM_BYTES * expected);
      const got = [0];
      fill(trie, raw, got, counts, { begin: 0, end: 0 }, new Uint32Array(4), 0, n, 3);
      const size = got[0]!;
      if (size > expected || size < expected - 100) throw new Error(`trie walk found ${size} ${n}-grams, header says ${expected}`);
      const ids = new Uint32Array(size * n);
      const prob = new Float64Array(size);
      const bo = new Float64Array(size);
      for (let i = 0; i < size; i++) {
        const wordsPtr = koffi.decode(raw, i * RAW_NGRAM_BYTES, 'void *');
        ids.set(koffi.decode(wordsPtr, 'uint32', n) as ArrayLike<number>, i * n);
        libcFree(wordsPtr);
        prob[i] = log10(raw.readFloatLE(i * RAW_NGRAM_BYTES + 8));
        bo[i] = n < 3 ? log10(raw.readFloatLE(i * RAW_NGRAM_BYTES + 12)) : 0;
      }
      return { ids, prob, bo };
    };
    const bi = level(2);
    const tri = level(3);
    return {
      words,
      unigramProb,
      unigramBackoff,
      bigrams: bi.ids,
      bigramProb: bi.prob,
      bigramBackoff: bi.bo,
      trigrams: tri.ids,
      trigramProb: tri.prob,
    };
  });
}
