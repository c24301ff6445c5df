/**
 * Finding glossary strings in text. Alphabetic scripts match whole words only ("ai" does not
 * match inside "said"); CJK has no spaces, so a CJK edge of a phrase matches anywhere (a
 * substring). A phrase such as "ChatGPT" inside Chinese text still matches, because a Han
 * character next to it is not a word character of the same kind.
 */

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const CJK_EDGE = new RegExp(`^[${CJK_CLASS}]`, 'u');
/** A letter or digit that is not CJK: the thing that must not touch an alphabetic word edge. */
const WORD_CHAR = `(?:(?![${CJK_CLASS}])[\\p{L}\\p{N}\\p{M}])`;

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Pattern source for one phrase with the right boundary on each edge. */
export function phrasePattern(phrase: string): string {
  const first = [...phrase][0] ?? '';
  const last = [...phrase].at(-1) ?? '';
  const wordy = (c: string) => /[\p{L}\p{N}]/u.test(c) && !CJK_EDGE.test(c);
  const left = wordy(first) ? `(?<!${WORD_CHAR})` : '';
  const right = wordy(last) ? `(?!${WORD_CHAR})` : '';
  return `${left}${escapeRegExp(phrase)}${right}`;
}

/** One regex matching any of `phrases`, longest first so "New York City" beats "New York". */
export function phrasesRegExp(phrases: Iterable<string>, caseInsensitive: boolean): RegExp | null {
  const list = [...new Set(phrases)].filter((p) => p !== '').sort((a, b) => [...b].length - [...a].length);
  if (list.length === 0) return null;
  return new RegExp(list.map(phrasePattern).join('|'), caseInsensitive ? 'giu' : 'gu');
}
