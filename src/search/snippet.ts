/**
 * Snippets and highlights, made here rather than by the database (FTS5 `snippet()`,
 * PostgreSQL `ts_headline()`), so both backends give the same text and the same marks, as
 * offsets the console turns into <mark> elements without parsing any markup.
 */
import { type SearchTerm, wordsOf } from './query.js';

export interface Highlight {
  /** UTF-16 offsets into the snippet text, end exclusive. */
  start: number;
  end: number;
}

export interface Snippet {
  text: string;
  highlights: Highlight[];
}

/** Longest snippet, in characters, before the text is cut around the first match. */
export const SNIPPET_CHARS = 180;
/** Characters kept before the first match when the text is cut. */
const LEAD = 50;

function matches(word: string, wanted: string, prefix: boolean): boolean {
  return prefix ? word.startsWith(wanted) : word === wanted;
}

/** Where the terms occur in `text` (whole words; a phrase as consecutive words). */
export function findMatches(text: string, terms: readonly SearchTerm[]): Highlight[] {
  const words = wordsOf(text);
  const found: Highlight[] = [];
  for (let i = 0; i < words.length; i++) {
    for (const t of terms) {
      const n = t.words.length;
      if (i + n > words.length) continue;
      let ok = true;
      for (let k = 0; k < n && ok; k++) ok = matches(words[i + k]!.word, t.words[k]!, t.prefix && k === n - 1);
      if (ok) {
        found.push({ start: words[i]!.start, end: words[i + n - 1]!.end });
        break;
      }
    }
  }
  return found;
}

/** The text (cut around its first match when long) with its matches marked. */
export function makeSnippet(text: string, terms: readonly SearchTerm[]): Snippet {
  const clean = text.replace(/\s+/g, ' ').trim();
  const all = findMatches(clean, terms);
  if (clean.length <= SNIPPET_CHARS) return { text: clean, highlights: all };
  const first = all[0]?.start ?? 0;
  let from = Math.max(0, first - LEAD);
  // Start and end on word boundaries.
  if (from > 0) from = clean.indexOf(' ', from) + 1 || first;
  if (from > first) from = first;
  let to = Math.min(clean.length, from + SNIPPET_CHARS);
  if (to < clean.length) {
    const space = clean.lastIndexOf(' ', to);
    if (space > from) to = space;
  }
  const head = from > 0 ? '… ' : '';
  const tail = to < clean.length ? ' …' : '';
  const shift = head.length - from;
  return {
    text: head + clean.slice(from, to) + tail,
    highlights: all.filter((h) => h.start >= from && h.end <= to).map((h) => ({ start: h.start + shift, end: h.end + shift })),
  };
}
