/**
 * The pronunciation dictionary cut to the language model's words. The CMU dictionary has
 * 134,723 entries; only the 79,420 whose word the en-us language model knows can ever be
 * recognized (the search tree is built from words with an LM entry), yet every decoder kept
 * all of them: 12 MB of each ~90 MB decoder (measured with three decoders). The cut
 * dictionary is written once per model directory into the system temp folder and gives the
 * same results (bench:engines WER unchanged). Glossary words are added on top per job.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import koffi from 'koffi';

const cached = new Map<string, string>();

/**
 * Path of the dictionary cut to the LM's words for `modelDir` (made on first use; the full
 * one if that fails). With `topWords`, only the LM's that many most probable words (by
 * unigram probability) are kept.
 */
export function lmDictionary(modelDir: string, topWords = 0): string {
  const key = `${modelDir}\0${topWords}`;
  const known = cached.get(key);
  if (known) return known;
  const full = `${modelDir}/cmudict-en-us.dict`;
  const lmPath = `${modelDir}/en-us.lm.bin`;
  let path = full;
  try {
    const stamp = [statSync(full).mtimeMs, statSync(lmPath).mtimeMs, statSync(full).size].map((n) => Math.floor(n / 1000)).join('-');
    const dir = join(tmpdir(), 'parley-pocketsphinx');
    const target = join(dir, `cmudict-lm-${stamp}${topWords ? `-top${topWords}` : ''}.dict`);
    if (!existsSync(target)) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${target}.${process.pid}.tmp`;
      writeFileSync(tmp, cut(full, lmPath, topWords));
      renameSync(tmp, target); // atomic: a concurrent process sees the whole file or none
    }
    path = target;
  } catch {
    path = full; // a read-only temp folder: the full dictionary works, with more memory
  }
  cached.set(key, path);
  return path;
}

/** Dictionary lines whose word (variants "word(2)" folded) the language model knows (its `top` most probable, when > 0). */
function cut(dictPath: string, lmPath: string, top: number): string {
  const sb = koffi.load('libsphinxbase.so.3');
  const logmathInit = sb.func('void *logmath_init(double, int, int)');
  const logmathFree = sb.func('int logmath_free(void *)');
  const read = sb.func('void *ngram_model_read(void *, const char *, int, void *)');
  const free = sb.func('int ngram_model_free(void *)');
  const wid = sb.func('int ngram_wid(void *, const char *)');
  const unknown = sb.func('int ngram_unknown_wid(void *)');
  const unigramScore = sb.func('int ngram_ng_score(void *, int, int *, int, _Out_ int *)');
  const quiet = sb.func('void err_set_logfp(void *)');
  quiet(null); // the library's progress lines on stderr; decoders set their own log later
  const lmath = logmathInit(1.0001, 0, 0);
  const lm = read(null, lmPath, 0 /* NGRAM_AUTO */, lmath);
  if (!lm) throw new Error('language model not readable');
  try {
    const none = unknown(lm) as number;
    const wordOf = (line: string) => line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '');
    let keep = readFileSync(dictPath, 'utf8')
      .split('\n')
      .filter((line) => line && wid(lm, wordOf(line)) !== none);
    if (top > 0) {
      const score = new Map<string, number>();
      for (const line of keep) score.set(wordOf(line), unigramScore(lm, wid(lm, wordOf(line)), null, 0, [0]) as number);
      const best = new Set(
        [...score.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, top)
          .map(([w]) => w),
      );
      keep = keep.filter((line) => best.has(wordOf(line)));
    }
    return `${keep.join('\n')}\n`;
  } finally {
    free(lm);
    logmathFree(lmath);
  }
}
