/**
 * The pronunciation dictionary cut to a language model's words. The CMU dictionary has
 * 134,723 entries; only the 79,420 whose word the en-us language model knows can ever be
 * recognized (the search tree is built from words with an LM entry), yet every decoder kept
 * all of them: 12 MB of each ~90 MB decoder (measured with three decoders). The cut
 * dictionary is written once per model into the system temp folder (derivedModelPath) and
 * gives the same results (bench:engines WER unchanged). Glossary words are added on top per job.
 */
import { existsSync, readFileSync } from 'node:fs';
import { derivedModelPath, writeAtomically } from './derived-models.js';
import { LM_FORMAT, nativeLibrary, withLanguageModel } from './libraries.js';

const cached = new Map<string, string>();

/**
 * Path of the dictionary of `modelDir` cut to the words of the language model `lmPath` (the
 * model's own by default); made on first use, the full dictionary if that fails.
 */
export function lmDictionary(modelDir: string, lmPath = `${modelDir}/en-us.lm.bin`): string {
  const known = cached.get(lmPath);
  if (known) return known;
  const full = `${modelDir}/cmudict-en-us.dict`;
  let path = full;
  try {
    const target = derivedModelPath([full, lmPath], 'cmudict', '.dict');
    if (!existsSync(target)) writeAtomically(target, cut(full, lmPath));
    path = target;
  } catch {
    path = full; // a read-only temp folder: the full dictionary works, with more memory
  }
  cached.set(lmPath, path);
  return path;
}

/** Dictionary lines whose word (variants "word(2)" folded) the language model knows. */
function cut(dictPath: string, lmPath: string): string {
  const sb = nativeLibrary('libsphinxbase.so.3');
  const wid = sb.func('int ngram_wid(void *, const char *)');
  const unknown = sb.func('int ngram_unknown_wid(void *)');
  return withLanguageModel(lmPath, LM_FORMAT.auto, (lm) => {
    const none = unknown(lm) as number;
    const wordOf = (line: string) => line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '');
    const keep = readFileSync(dictPath, 'utf8')
      .split('\n')
      .filter((line) => line && wid(lm, wordOf(line)) !== none);
    return `${keep.join('\n')}\n`;
  });
}
