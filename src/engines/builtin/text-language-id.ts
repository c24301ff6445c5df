/**
 * Text language identification with tinyld (pure JS n-gram profiles, ~60 languages).
 * tinyld reports "zh" for both Chinese scripts, so the script is decided here from the
 * characters themselves: characters that OpenCC would change going Traditional -> Simplified
 * are Traditional-only, and the other way round; the majority picks zh-TW or zh-CN.
 */
import * as OpenCC from 'opencc-js';
import { detectAll } from 'tinyld';
import { baseLanguage, chineseScript, normalizeLanguage } from '../../languages.js';
import type { EngineFactory } from '../registry.js';
import type { LanguageGuess, TextLanguageIdentifier } from '../types.js';

type Convert = (s: string) => string;
let toSimplified: Convert | null = null;
let toTraditional: Convert | null = null;

/** Counts Han characters that exist only in Traditional and only in Simplified writing. */
export function chineseScriptOf(text: string): 'Hant' | 'Hans' {
  toSimplified ??= OpenCC.Converter({ from: 't', to: 'cn' }) as Convert;
  toTraditional ??= OpenCC.Converter({ from: 'cn', to: 't' }) as Convert;
  const han = [...text].filter((c) => /\p{Script=Han}/u.test(c));
  let traditional = 0;
  let simplified = 0;
  for (const c of han) {
    if (toSimplified(c) !== c) traditional++;
    if (toTraditional(c) !== c) simplified++;
  }
  return traditional > simplified ? 'Hant' : 'Hans';
}

export class TinyLanguageIdentifier implements TextLanguageIdentifier {
  readonly id = 'builtin/text-language-id';
  readonly kind = 'language-id' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['*'] };

  /**
   * Guesses, best first. With `candidates` the answer is restricted to them and reported
   * with the candidate's own tag (so "en-US" comes back, not "en"); Chinese becomes zh-TW
   * or zh-CN (or the candidate of that script).
   */
  async identify(text: string, candidates?: readonly string[]): Promise<LanguageGuess[]> {
    const tags = candidates?.map((c) => normalizeLanguage(c)).filter((c): c is string => c !== null);
    const only = tags ? [...new Set(tags.map(baseLanguage))] : undefined;
    const raw = detectAll(text, only ? { only } : undefined);
    const script = raw.some((r) => r.lang === 'zh') ? chineseScriptOf(text) : null;
    const out: LanguageGuess[] = [];
    for (const r of raw) {
      let tag: string | undefined;
      if (r.lang === 'zh') {
        tag = tags
          ? (tags.find((t) => chineseScript(t) === script) ?? tags.find((t) => baseLanguage(t) === 'zh'))
          : script === 'Hant'
            ? 'zh-TW'
            : 'zh-CN';
      } else {
        tag = tags ? tags.find((t) => baseLanguage(t) === r.lang) : r.lang;
      }
      if (tag && !out.some((g) => g.language === tag)) out.push({ language: tag, confidence: Math.round(r.accuracy * 1000) / 1000 });
    }
    return out;
  }
}

export const textLanguageIdFactory: EngineFactory = {
  id: 'builtin/text-language-id',
  kind: 'language-id',
  tier: 'builtin',
  summary: 'Text language identification (npm tinyld n-grams; zh-TW vs zh-CN from the characters via OpenCC tables)',
  async create() {
    return new TinyLanguageIdentifier();
  },
};
