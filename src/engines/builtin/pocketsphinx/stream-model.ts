/**
 * The stream decoders' model (issue 14: memory per live session): the en-us language model
 * cut to its most probable words (lm-prune.ts) and the dictionary cut to them.
 *
 * A live session holds one stream decoder for its interims; its finals are decoded again by
 * the shared file decoders with the full model (streaming.ts), so the cut model never
 * changes a final. Measured on this machine (six decoders loaded, each decoding jfk at
 * once; and jfk twice plus the four LibriVox clips streamed through the live recognizer, 111
 * final words, for the share of final words an earlier interim showed, matched by
 * alignment):
 *   full model (72,547 words, 2.05 M bigrams, 1.67 M trigrams)   84.8 MB a decoder, 79.3 %
 *   20,000 words, pruned at 1e-7 (499 k bigrams, 378 k trigrams)  30.8 MB, 79.3 %
 *   15,000 words, pruned at 1e-7 (475 k bigrams, 377 k trigrams)  26.0 MB, 79.3 %
 *   10,000 words, pruned at 1e-7                                   23.3 MB, 76.6 %
 * (a threshold of 3e-8 kept twice the n-grams at 20,000 words for 6 MB more and no gain).
 * Later (session 7; PSS of decoders after decoding jfk, anonymous memory only: the model files
 * every decoder maps are in memory once; jfk, the LibriVox clips, stereo_diarization and
 * multiple_keywords streamed, 158 final words, share an interim showed):
 *   15,000 words at 1e-7 (6.4 MB file)   21.4 MB, 74.1 %
 *   15,000 words at 3e-7 (3.5 MB file)   19.8 MB, 74.7 %
 *   15,000 words at 1e-6 (2.0 MB file)   18.4 MB, 72.8 %
 *   12,000 words at 3e-7                 17.8 MB, 72.8 %
 *   10,000 words at 3e-7                 15.9 MB, 70.3 %
 * The default is 15,000 words at 3e-7 (PARLEY_POCKETSPHINX_STREAM_VOCABULARY). What interims
 * miss is the second pass and the whole-utterance mean of the finals (the full model in the
 * stream decoder missed 1 word fewer of 90), not the cut model.
 *
 * Built once per machine (about 8 s: `npm run setup` does it) and cached beside the cut
 * dictionaries (derived-models.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DERIVED_DIR, derivedModelPath } from './derived-models.js';
import { LM_FORMAT, nativeLibrary, withLanguageModel } from './libraries.js';
import { lmDictionary } from './lm-dictionary.js';
import { extractTrigramModel } from './lm-extract.js';
import { pruneToArpa } from './lm-prune.js';

/** Weighted-difference threshold of the n-grams kept (lm-prune.ts), chosen above. */
const PRUNE_THRESHOLD = 3e-7;
/** Bumped when the cutting changes, so a cached model of an earlier rule is not used. */
const RULES_VERSION = 2;

export interface StreamModel {
  lm: string;
  dict: string;
}

/**
 * The stream model of `modelDir` keeping `vocabulary` words, built if missing (blocking: call
 * at start-up). Throws when it cannot be built; the caller then uses the full model.
 */
export function streamModel(modelDir: string, vocabulary: number): StreamModel {
  const full = `${modelDir}/en-us.lm.bin`;
  const lm = derivedModelPath([full], `en-us-stream-r${RULES_VERSION}-w${vocabulary}-t${PRUNE_THRESHOLD}`, '.lm.bin');
  if (!existsSync(lm)) buildStreamModel(full, lm, vocabulary);
  return { lm, dict: lmDictionary(modelDir, lm) };
}

function buildStreamModel(fullLm: string, target: string, vocabulary: number): void {
  const { arpa } = pruneToArpa(extractTrigramModel(fullLm), { vocabulary, threshold: PRUNE_THRESHOLD });
  mkdirSync(DERIVED_DIR, { recursive: true });
  const work = mkdtempSync(join(DERIVED_DIR, 'build-'));
  try {
    const arpaPath = join(work, 'stream.arpa');
    writeFileSync(arpaPath, arpa);
    // The library reads the ARPA text and writes its own binary (trie) format: quick to load.
    const bin = join(work, 'stream.lm.bin');
    const write = nativeLibrary('libsphinxbase.so.3').func('int ngram_model_write(void *, const char *, int)');
    const written = withLanguageModel(arpaPath, LM_FORMAT.arpa, (model) => write(model, bin, LM_FORMAT.binary) as number);
    if (written < 0) throw new Error('the cut language model could not be written');
    renameSync(bin, target); // same folder tree: atomic
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
