/**
 * Traditional / Simplified Chinese conversion with OpenCC (npm opencc-js, pure JS):
 * zh-TW (Taiwan phrases) <-> zh-CN <-> zh-HK. It is a "translator" between scripts of one
 * language, so the registry can route zh-TW -> zh-CN like any pair.
 */
import * as OpenCC from 'opencc-js';
import { chineseScript, normalizeLanguage } from '../../languages.js';
import { EngineError } from '../errors.js';
import type { EngineFactory } from '../registry.js';
import type { TranslateOptions, Translator } from '../types.js';

type Locale = 'cn' | 'twp' | 'hk';

/** The OpenCC locale of a Chinese tag: Taiwan phrases for TW, Hong Kong for HK/MO, mainland otherwise. */
function localeOf(tag: string): Locale | null {
  const t = normalizeLanguage(tag) ?? tag;
  if (chineseScript(t) === null) return null;
  if (/-(HK|MO)$/.test(t) || t.startsWith('yue')) return 'hk';
  if (chineseScript(t) === 'Hant') return 'twp';
  return 'cn';
}

const PAIRS: Array<readonly [string, string]> = [
  ['zh-TW', 'zh-CN'],
  ['zh-CN', 'zh-TW'],
  ['zh-HK', 'zh-CN'],
  ['zh-CN', 'zh-HK'],
  ['zh-TW', 'zh-HK'],
  ['zh-HK', 'zh-TW'],
];

export class OpenCcTranslator implements Translator {
  readonly id = 'builtin/opencc';
  readonly kind = 'translator' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['zh-TW', 'zh-CN', 'zh-HK'], pairs: PAIRS };
  private readonly converters = new Map<string, (s: string) => string>();

  async translate(text: string, options: TranslateOptions): Promise<string> {
    options.signal?.throwIfAborted(); // a cancelled request does no work (engine conformance)
    const from = localeOf(options.from);
    const to = localeOf(options.to);
    if (!from || !to)
      throw new EngineError(
        'translation_language_unsupported',
        `OpenCC converts between Chinese scripts only (${options.from} -> ${options.to})`,
        { engineId: this.id },
      );
    if (from === to) return text;
    const key = `${from}>${to}`;
    const convert = this.converters.get(key) ?? (OpenCC.Converter({ from, to }) as (s: string) => string);
    this.converters.set(key, convert);
    return convert(text);
  }
}

export const openccFactory: EngineFactory = {
  id: 'builtin/opencc',
  kind: 'translator',
  tier: 'builtin',
  summary: 'OpenCC Traditional/Simplified Chinese conversion (zh-TW, zh-CN, zh-HK; npm opencc-js)',
  async create() {
    return new OpenCcTranslator();
  },
};
