/**
 * The search box's language, parsed once and written out for each backend, so SQLite and
 * PostgreSQL are asked the same question and the snippets mark the same words:
 * words (all must occur), "quoted phrases" (words in this order), and `word*` (a prefix).
 * A word is a run of letters, digits and combining marks, case-folded; everything else
 * separates words, as the two full-text tokenizers do.
 */
import { AppError } from '../platform/errors/app-error.js';

export interface SearchTerm {
  /** One word, or the words of a phrase in order. Lower case. */
  words: string[];
  /** The last word matches as a prefix. */
  prefix: boolean;
}

export const MAX_QUERY_CHARS = 200;
export const MAX_TERMS = 16;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of `text` with their offsets (UTF-16 code units, as JavaScript strings index). */
export function wordsOf(text: string): { word: string; start: number; end: number }[] {
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

/** Parses the `q` parameter; `validation_failed` (field `q`) when it has no word or too many. */
export function parseQuery(q: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  // A quoted phrase, or a run of non-space characters (a word, maybe with a trailing *).
  for (const m of q.matchAll(/"([^"]*)"?(\*)?|(\S+)/g)) {
    const raw = m[1] ?? m[3] ?? '';
    const starred = m[2] !== undefined || (m[3] !== undefined && raw.endsWith('*'));
    const words = wordsOf(raw).map((w) => w.word);
    if (words.length === 0) continue;
    // `well-known` is the phrase "well known", as both tokenizers split it.
    terms.push({ words, prefix: starred });
  }
  if (terms.length === 0) {
    throw new AppError('validation_failed', { message: 'q must contain at least one word.', details: { field: 'q' } });
  }
  if (terms.length > MAX_TERMS) {
    throw new AppError('validation_failed', {
      message: `q may contain at most ${MAX_TERMS} words or phrases.`,
      details: { field: 'q', max: MAX_TERMS },
    });
  }
  return terms;
}

/** FTS5 query: each term a quoted string (no operator can be injected), implicit AND between them. */
export function toFts5(terms: readonly SearchTerm[]): string {
  return terms.map((t) => `"${t.words.join(' ')}"${t.prefix ? '*' : ''}`).join(' ');
}

/** PostgreSQL tsquery text for `to_tsquery('simple', ...)`: quoted lexemes, `<->` within a phrase, `&` between terms. */
export function toTsquery(terms: readonly SearchTerm[]): string {
  return terms
    .map((t) => {
      const lexemes = t.words.map((w, i) => `'${w}'${t.prefix && i === t.words.length - 1 ? ':*' : ''}`);
      return lexemes.length > 1 ? `(${lexemes.join(' <-> ')})` : lexemes[0];
    })
    .join(' & ');
}
