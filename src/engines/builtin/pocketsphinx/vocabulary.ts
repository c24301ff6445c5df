/**
 * Glossary terms to a decoder vocabulary: the words of the terms (dictionary spelling) that
 * the CMU dictionary lacks, with pronunciations from eSpeak NG (pronounce.ts). Words the
 * dictionary has need nothing: the language model already knows them.
 */
import { readFileSync } from 'node:fs';
import { MODEL_DIR, NO_VOCABULARY, type Vocabulary } from './native.js';
import { dictionaryWord, pronounce } from './pronounce.js';

/**
 * At most this many words are added to one decoder. Debian's PocketSphinx 5prealpha crashes
 * (segmentation fault in the search, on real speech) once 19 or more words have been added to
 * a decoder (found with bench:engines' 50-term glossary; 18 worked, whichever words). The
 * first terms of the glossary win; the others still get fuzzy correction and casing.
 */
export const MAX_VOCABULARY_WORDS = 16;

let known: Set<string> | null = null;

/** The dictionary's words (variants such as "read(2)" folded), read once on first use. */
function dictionaryWords(): Set<string> {
  if (known) return known;
  known = new Set();
  for (const line of readFileSync(`${MODEL_DIR}/cmudict-en-us.dict`, 'utf8').split('\n')) {
    const word = line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '');
    if (word) known.add(word);
  }
  return known;
}

/** The vocabulary `terms` need (NO_VOCABULARY when every word is known). */
export async function vocabularyFor(terms: readonly string[] | undefined): Promise<Vocabulary> {
  if (!terms?.length) return NO_VOCABULARY;
  const dict = dictionaryWords();
  const unknown = [
    ...new Set(terms.flatMap((t) => t.split(/\s+/).map(dictionaryWord)).filter((w): w is string => w !== null && !dict.has(w))),
  ];
  if (!unknown.length) return NO_VOCABULARY;
  const phones = await pronounce(unknown);
  const words = unknown
    .filter((w) => phones.has(w))
    .slice(0, MAX_VOCABULARY_WORDS)
    .sort()
    .map((w) => ({ word: w, phones: phones.get(w)!.join(' ') }));
  return words.length ? { key: words.map((w) => w.word).join(' '), words } : NO_VOCABULARY;
}
