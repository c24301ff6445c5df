/**
 * A smaller trigram language model cut from a big one, for stream decoders (issue 14: memory
 * per live session). Live interims come from a session's own stream decoder; its finals are
 * decoded again by shared file decoders with the full model (streaming.ts). The stream
 * decoder's size is mostly the language model and the search built over its vocabulary, so a
 * model of the most probable words, with the n-grams among them that carry information,
 * makes each session's decoder several times smaller and its search faster.
 *
 * The cut model is a proper backoff model over its vocabulary:
 * - unigrams: the `vocabulary` most probable words (with <s>, </s>), renormalized;
 * - bigrams and trigrams whose words are all kept, less those that change the model little
 *   if left out: an n-gram h w goes when P(h) P(w|h) |log10 P(w|h) - log10 backoff(h) P(w|h')|
 *   is under `threshold` (the weighted-difference idea behind Stolcke's entropy pruning,
 *   with the old backoff weights; P(h) from the model itself);
 * - every context's backoff weight recomputed so each context's probabilities sum to one
 *   over the new vocabulary (the usual renormalization after pruning).
 *
 * Pure computation over arrays: lm-extract.ts reads the n-grams from PocketSphinx's binary
 * model, this writes ARPA text.
 */

/** All n-grams of a trigram model, word ids into `words`, log10 probabilities and backoffs. */
export interface NgramTables {
  words: string[];
  unigramProb: Float64Array;
  unigramBackoff: Float64Array;
  /** Pairs (w1, w2). */
  bigrams: Uint32Array;
  bigramProb: Float64Array;
  bigramBackoff: Float64Array;
  /** Triples (w1, w2, w3). */
  trigrams: Uint32Array;
  trigramProb: Float64Array;
}

export interface PruneOptions {
  /** Words kept (most probable unigrams first). */
  vocabulary: number;
  /** An n-gram is dropped when its weighted difference from backing off is under this. */
  threshold: number;
}

export interface PrunedCounts {
  unigrams: number;
  bigrams: number;
  trigrams: number;
}

const NO_PROB = -99;
const SENTENCE_MARKS = new Set(['<s>', '</s>']);
/** Keys of word pairs: ids stay below 2^21, so a pair fits exactly in a double. */
const pair = (a: number, b: number) => a * 2_097_152 + b;

/** The cut model as ARPA text, and its n-gram counts. */
export function pruneToArpa(t: NgramTables, options: PruneOptions): { arpa: string; counts: PrunedCounts } {
  const n = t.words.length;
  if (n >= 2_097_152) throw new Error('vocabulary too large');
  // Vocabulary: sentence marks and the most probable words.
  const order = [...Array(n).keys()].filter((w) => !SENTENCE_MARKS.has(t.words[w]!));
  order.sort((a, b) => t.unigramProb[b]! - t.unigramProb[a]! || (t.words[a]! < t.words[b]! ? -1 : 1));
  const kept = new Uint8Array(n);
  for (const w of order.slice(0, options.vocabulary)) kept[w] = 1;
  for (let w = 0; w < n; w++) if (SENTENCE_MARKS.has(t.words[w]!)) kept[w] = 1;

  // Unigrams renormalized over the kept words.
  let mass = 0;
  for (let w = 0; w < n; w++) if (kept[w] && t.unigramProb[w]! > NO_PROB) mass += 10 ** t.unigramProb[w]!;
  const uni = new Float64Array(n).fill(NO_PROB);
  for (let w = 0; w < n; w++) if (kept[w]) uni[w] = t.unigramProb[w]! > NO_PROB ? t.unigramProb[w]! - Math.log10(mass) : NO_PROB;

  // P(h) of the weights: <s> has no unigram probability (-99) but starts every sentence, as
  // often as </s> ends one; without this every n-gram after <s> would weigh nothing.
  const sentenceStart = t.words.indexOf('<s>');
  const sentenceEnd = t.words.indexOf('</s>');
  const contextProb = (w: number) => (w === sentenceStart && sentenceEnd >= 0 ? t.unigramProb[sentenceEnd]! : t.unigramProb[w]!);
  // Bigrams: kept words, and worth keeping (above).
  const bigramKeep = new Uint8Array(t.bigramProb.length);
  for (let i = 0; i < t.bigramProb.length; i++) {
    const a = t.bigrams[2 * i]!;
    const b = t.bigrams[2 * i + 1]!;
    if (!kept[a] || !kept[b]) continue;
    const estimate = t.unigramBackoff[a]! + t.unigramProb[b]!;
    const weight = 10 ** (contextProb(a) + t.bigramProb[i]!);
    // A bigram that is the context of a kept trigram stays (it holds that context's backoff); decided below.
    bigramKeep[i] = weight * Math.abs(t.bigramProb[i]! - estimate) >= options.threshold ? 1 : 2;
  }
  // Trigrams: kept words, and worth keeping by the same measure.
  const bigramAt = new Map<number, number>();
  for (let i = 0; i < t.bigramProb.length; i++) if (bigramKeep[i]) bigramAt.set(pair(t.bigrams[2 * i]!, t.bigrams[2 * i + 1]!), i);
  const oldBigram = (a: number, b: number): number => {
    const i = bigramAt.get(pair(a, b));
    return i === undefined ? t.unigramBackoff[a]! + t.unigramProb[b]! : t.bigramProb[i]!;
  };
  const trigramKeep = new Uint8Array(t.trigramProb.length);
  for (let i = 0; i < t.trigramProb.length; i++) {
    const a = t.trigrams[3 * i]!;
    const b = t.trigrams[3 * i + 1]!;
    const c = t.trigrams[3 * i + 2]!;
    if (!kept[a] || !kept[b] || !kept[c]) continue;
    const context = bigramAt.get(pair(a, b));
    if (context === undefined) continue;
    const estimate = t.bigramBackoff[context]! + oldBigram(b, c);
    const weight = 10 ** (contextProb(a) + t.bigramProb[context]! + t.trigramProb[i]!);
    if (weight * Math.abs(t.trigramProb[i]! - estimate) < options.threshold) continue;
    trigramKeep[i] = 1;
    bigramKeep[context] = 1;
    // Its last two words stay a bigram too: the model's tries look an n-gram's suffix up.
    const suffix = bigramAt.get(pair(b, c));
    if (suffix !== undefined) bigramKeep[suffix] = 1;
  }
  for (let i = 0; i < bigramKeep.length; i++) {
    if (bigramKeep[i] === 2) {
      bigramKeep[i] = 0;
      bigramAt.delete(pair(t.bigrams[2 * i]!, t.bigrams[2 * i + 1]!));
    }
  }

  // Unigram backoffs: (1 - kept bigram mass) / (1 - unigram mass of their words).
  const uniNum = new Float64Array(n);
  const uniDen = new Float64Array(n);
  for (let i = 0; i < bigramKeep.length; i++) {
    if (!bigramKeep[i]) continue;
    const a = t.bigrams[2 * i]!;
    uniNum[a]! += 10 ** t.bigramProb[i]!;
    uniDen[a]! += 10 ** uni[t.bigrams[2 * i + 1]!]!;
  }
  const uniBo = new Float64Array(n);
  for (let w = 0; w < n; w++) uniBo[w] = kept[w] ? backoff(uniNum[w]!, uniDen[w]!) : 0;
  const newBigram = (a: number, b: number): number => {
    const i = bigramAt.get(pair(a, b));
    return i === undefined ? uniBo[a]! + uni[b]! : t.bigramProb[i]!;
  };
  // Bigram backoffs: (1 - kept trigram mass) / (1 - new bigram mass of their last two words).
  const biNum = new Float64Array(t.bigramProb.length);
  const biDen = new Float64Array(t.bigramProb.length);
  for (let i = 0; i < trigramKeep.length; i++) {
    if (!trigramKeep[i]) continue;
    const a = t.trigrams[3 * i]!;
    const b = t.trigrams[3 * i + 1]!;
    const c = t.trigrams[3 * i + 2]!;
    const context = bigramAt.get(pair(a, b))!;
    biNum[context]! += 10 ** t.trigramProb[i]!;
    biDen[context]! += 10 ** newBigram(b, c);
  }

  const counts: PrunedCounts = { unigrams: 0, bigrams: 0, trigrams: 0 };
  const unigramLines: string[] = [];
  for (let w = 0; w < n; w++) {
    if (!kept[w]) continue;
    unigramLines.push(`${f4(uni[w]!)}\t${t.words[w]}\t${f4(uniBo[w]!)}`);
    counts.unigrams++;
  }
  const bigramLines: string[] = [];
  for (let i = 0; i < bigramKeep.length; i++) {
    if (!bigramKeep[i]) continue;
    const bo = backoff(biNum[i]!, biDen[i]!);
    bigramLines.push(`${f4(t.bigramProb[i]!)}\t${t.words[t.bigrams[2 * i]!]} ${t.words[t.bigrams[2 * i + 1]!]}\t${f4(bo)}`);
    counts.bigrams++;
  }
  const trigramLines: string[] = [];
  for (let i = 0; i < trigramKeep.length; i++) {
    if (!trigramKeep[i]) continue;
    const [a, b, c] = [t.trigrams[3 * i]!, t.trigrams[3 * i + 1]!, t.trigrams[3 * i + 2]!];
    trigramLines.push(`${f4(t.trigramProb[i]!)}\t${t.words[a]} ${t.words[b]} ${t.words[c]}`);
    counts.trigrams++;
  }
  const header = ['\\data\\', `ngram 1=${counts.unigrams}`, `ngram 2=${counts.bigrams}`, `ngram 3=${counts.trigrams}`, ''];
  const arpa = [
    header.join('\n'),
    '\\1-grams:',
    unigramLines.join('\n'),
    '\n\\2-grams:',
    bigramLines.join('\n'),
    '\n\\3-grams:',
    trigramLines.join('\n'),
    '\n\\end\\\n',
  ].join('\n');
  return { arpa, counts };
}

/**
 * log10 of the backoff weight that gives a context's unseen words the mass its seen ones
 * leave: (1 - seen) / (1 - what the lower order gives the seen words), kept finite.
 */
function backoff(seenMass: number, lowerMass: number): number {
  if (seenMass === 0 && lowerMass === 0) return 0;
  const left = Math.max(1 - seenMass, 1e-6);
  const lowerLeft = Math.max(1 - lowerMass, 1e-6);
  return Math.log10(left / lowerLeft);
}

const f4 = (x: number) => (x <= NO_PROB ? '-99.0000' : x.toFixed(4));
