/**
 * Builds the files derived from Debian's PocketSphinx models (the live stream decoders' cut
 * model and the cut dictionaries, stream-model.ts) ahead of the first start, so that start
 * does not spend ~8 s on it. Skipped when the models are not installed.
 */
import { loadConfig } from '../src/config.js';
import { lmDictionary } from '../src/engines/builtin/pocketsphinx/lm-dictionary.js';
import { MODEL_DIR, modelsInstalled } from '../src/engines/builtin/pocketsphinx/native.js';
import { streamModel } from '../src/engines/builtin/pocketsphinx/stream-model.js';

if (modelsInstalled()) {
  lmDictionary(MODEL_DIR);
  const words = loadConfig(process.env).engines.pocketsphinxStreamVocabulary;
  if (words > 0) streamModel(MODEL_DIR, words);
}
