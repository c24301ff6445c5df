/**
 * Profanity handling for real-time text (`options.profanity_handling`): `mask` (default)
 * keeps the first letter and stars the rest ("f***"; every character of a Chinese word),
 * `remove` drops the word and the space it leaves, `show` changes nothing.
 *
 * Only the list of the text's own language is used: a word that is profane in one language
 * can be ordinary in another (German "dick" means thick). Alphabetic words match whole
 * words with their common inflections; Chinese matches substrings.
 */
import { baseLanguage } from '../../languages.js';

export type ProfanityHandling = 'mask' | 'remove' | 'show';
export const PROFANITY_MODES: readonly ProfanityHandling[] = ['mask', 'remove', 'show'];

/** Word stems with optional endings (regex fragments, lower case). */
const WORDS: Record<string, string[]> = {
  en: [
    'fuck(?:s|ed|er|ers|ing|in)?',
    'motherfuck(?:er|ers|ing)',
    'shit(?:s|ty|ted|ting)?',
    'bullshit',
    'bitch(?:es|y)?',
    'asshole(?:s)?',
    'bastard(?:s)?',
    'cunt(?:s)?',
    'dick(?:s|head|heads)?',
    'prick(?:s)?',
    'wanker(?:s)?',
    'twat(?:s)?',
  ],
  es: [
    'mierda(?:s)?',
    'puta(?:s)?',
    'puto(?:s)?',
    'joder',
    'jodido(?:s)?',
    'coño',
    'cabr[oó]n(?:es)?',
    'gilipollas',
    'pendejo(?:s)?',
    'carajo',
    'hostia(?:s)?',
  ],
  fr: [
    'merde(?:s)?',
    'putain(?:s)?',
    'connard(?:s)?',
    'connasse(?:s)?',
    'salope(?:s)?',
    'encul[ée](?:e|s|es)?',
    'bordel',
    'batard(?:s)?',
    'bâtard(?:s)?',
  ],
  de: ['schei(?:ß|ss)e', 'arschloch', 'arschlöcher', 'fotze(?:n)?', 'wichser', 'hure(?:n)?', 'fick(?:en|t|er)?', 'miststück', 'verdammte?'],
  pt: ['merda(?:s)?', 'porra', 'caralho', 'puta(?:s)?', 'foda-se', 'cacete'],
  it: ['cazzo', 'merda', 'stronz[oaie]', 'vaffanculo', 'puttana', 'coglion[ei]'],
  zh: ['他妈的', '他媽的', '妈的', '媽的', '操你妈', '操你媽', '肏', '傻逼', '傻屄', '王八蛋', '混蛋', '狗屎', '贱人', '賤人', '婊子'],
};

const LETTER = '[\\p{L}\\p{N}\\p{M}]';
const cache = new Map<string, RegExp | null>();

function regexFor(language: string): RegExp | null {
  const base = baseLanguage(language) === 'yue' || baseLanguage(language) === 'cmn' ? 'zh' : baseLanguage(language);
  if (cache.has(base)) return cache.get(base)!;
  const words = WORDS[base];
  const regex = !words
    ? null
    : base === 'zh'
      ? new RegExp(words.join('|'), 'gu')
      : new RegExp(`(?<!${LETTER})(?:${words.join('|')})(?!${LETTER})`, 'giu');
  cache.set(base, regex);
  return regex;
}

function mask(word: string): string {
  const chars = [...word];
  if (/\p{Script=Han}/u.test(chars[0] ?? '')) return '*'.repeat(chars.length);
  return chars[0] + '*'.repeat(chars.length - 1);
}

/** Applies `mode` to `text` in `language`. Languages without a list are returned unchanged. */
export function handleProfanity(text: string, language: string, mode: ProfanityHandling = 'mask'): string {
  if (mode === 'show') return text;
  const regex = regexFor(language);
  if (!regex) return text;
  if (mode === 'mask') return text.replace(regex, mask);
  return text
    .replace(regex, '')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([,.!?;:])/g, '$1')
    .trim();
}

/** Languages with a word list (for docs and `engines list`). */
export const PROFANITY_LANGUAGES = Object.keys(WORDS);
