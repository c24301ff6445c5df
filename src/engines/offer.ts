/**
 * The languages this process offers, computed from what its engines serve: the one list the
 * console's pickers, `GET /api/v1/languages` and every "valid_values" of a language refusal
 * read, so nothing offered is refused and nothing refused is offered.
 *
 * Engines declare codes in two ways: regional tags ("en-US") or bare languages ("de", which
 * serves every "de-*"; Whisper declares its 99 that way). People pick regional tags, so a bare
 * code is offered as itself plus the regions people usually pick: its likely region from
 * CLDR (Intl.Locale.maximize: de -> DE, sw -> TZ) and, for a few widely spoken languages, the
 * other common ones (en-GB, es-MX, pt-PT, zh-TW ...). Every offered tag is checked against the
 * registry with the need the feature asks for, so the list never claims more than `select`.
 * Translation targets stay as the translators declare them (a translator writes "es", not a
 * region), except Chinese, where the script matters (zh-CN, zh-TW).
 *
 * Order: the common choices first (COMMON), then alphabetically by English name.
 */
import { baseLanguage, chineseScript, isChinese, normalizeLanguage } from '../languages.js';
import type { Need } from './needs.js';
import type { EngineKind, Translator } from './types.js';

/** What the offer reads of the engine registry (registry.ts computes its offer with this module). */
export interface OfferedEngines {
  languagesFor(kind: EngineKind): string[];
  serves(need: Need): boolean;
  enginesOf(kind: 'translator'): Translator[];
  offeredLanguages(): LanguageOffer;
}

export interface LanguageOffer {
  /** Languages a live session can start with (streaming recognizer with interim results); null: this process runs no live sessions. */
  live: string[] | null;
  /** Languages an import can be recognized in (file recognizer); null: this process recognizes no files. */
  import: string[] | null;
  /** Source -> targets reachable (directly or through a pivot); null: no translator kind loaded here. */
  translation: Record<string, string[]> | null;
  /** Languages a synthesizer speaks; null: no synthesizer kind loaded here. */
  tts: string[] | null;
  /** English display name of every code above. */
  names: Record<string, string>;
}

/** The choices most people make, in this order, before the alphabetical rest. */
const COMMON = [
  'en-US',
  'en-GB',
  'en',
  'es-ES',
  'es-MX',
  'es',
  'fr-FR',
  'fr',
  'de-DE',
  'de',
  'it-IT',
  'it',
  'pt-BR',
  'pt-PT',
  'pt',
  'zh-CN',
  'zh-TW',
  'ja-JP',
  'ja',
  'ko-KR',
  'ko',
];

/** Regions offered for a bare code besides its likely one (widely spoken in several countries). */
const OTHER_REGIONS: Record<string, readonly string[]> = {
  en: ['US', 'GB', 'AU', 'CA', 'IN'],
  es: ['ES', 'MX', 'US'],
  fr: ['FR', 'CA'],
  de: ['DE', 'AT', 'CH'],
  pt: ['BR', 'PT'],
  zh: ['CN', 'TW', 'HK'],
  nl: ['NL', 'BE'],
  ar: ['SA', 'EG'],
};

const NAMES = new Intl.DisplayNames(['en'], { type: 'language', languageDisplay: 'standard', fallback: 'code' });

const nameCache = new Map<string, string>();

/** "English (United States)"; Chinese names its script, which is what zh-CN / zh-TW decide here. */
export function languageDisplayName(code: string): string {
  const cached = nameCache.get(code);
  if (cached !== undefined) return cached;
  const name = displayName(code);
  nameCache.set(code, name);
  return name;
}

function displayName(code: string): string {
  try {
    if (isChinese(code) && code.includes('-') && !/-Han[st]\b/.test(code)) {
      const [base, ...rest] = code.split('-');
      return NAMES.of([base, chineseScript(code), ...rest].join('-')) ?? code;
    }
    return NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}

/** A declared code and the regional tags people pick for it ("de" -> de, de-DE, de-AT, de-CH). */
export function regionalForms(code: string): string[] {
  const tag = normalizeLanguage(code);
  if (!tag) return [];
  if (tag.includes('-')) return [tag];
  const regions = new Set<string>();
  try {
    const likely = new Intl.Locale(tag).maximize().region;
    if (likely) regions.add(likely);
  } catch {
    // A code ICU does not know keeps only itself.
  }
  for (const r of OTHER_REGIONS[tag] ?? []) regions.add(r);
  return [tag, ...[...regions].map((r) => `${tag}-${r}`)];
}

/** Common choices first (COMMON order), then by English name, then by code. */
export function byCommonThenName(codes: Iterable<string>): string[] {
  const rank = (c: string) => {
    const i = COMMON.indexOf(c);
    return i < 0 ? COMMON.length : i;
  };
  return [...new Set(codes)].sort(
    (a, b) => rank(a) - rank(b) || languageDisplayName(a).localeCompare(languageDisplayName(b), 'en') || a.localeCompare(b),
  );
}

/** Declared languages of a kind, without the wildcard. */
const declared = (registry: OfferedEngines, kind: EngineKind) => registry.languagesFor(kind).filter((l) => l !== '*');

/** What a live session, an import, a translation and TTS can use here (see the file comment). */
export function offeredLanguages(registry: OfferedEngines, loadedKinds: ReadonlySet<EngineKind>): LanguageOffer {
  const speech = (kind: 'streaming-stt' | 'file-stt') => {
    if (!loadedKinds.has(kind)) return null;
    const candidates = declared(registry, kind).flatMap(regionalForms);
    // As the recording asks (src/realtime/ports.ts): live captions need interim results.
    const served = candidates.filter((language) =>
      registry.serves(kind === 'streaming-stt' ? { kind, language, interimResults: true } : { kind, language }),
    );
    return byCommonThenName(served);
  };
  const live = speech('streaming-stt');
  const imported = speech('file-stt');
  const tts = loadedKinds.has('tts')
    ? byCommonThenName(
        declared(registry, 'tts')
          .map((l) => normalizeLanguage(l))
          .filter((l): l is string => l !== null && registry.serves({ kind: 'tts', language: l })),
      )
    : null;
  const translation = loadedKinds.has('translator') ? translationOffer(registry, [...(live ?? []), ...(imported ?? [])]) : null;

  const names: Record<string, string> = {};
  const all = [...(live ?? []), ...(imported ?? []), ...(tts ?? []), ...Object.entries(translation ?? {}).flat(2)];
  for (const code of all) names[code] ??= languageDisplayName(code);
  return { live, import: imported, translation, tts, names };
}

/**
 * Targets per source. Sources: the offered speech languages and the translators' own. Targets:
 * see `targetCandidates`; those the registry serves from the source.
 */
function translationOffer(registry: OfferedEngines, speech: string[]): Record<string, string[]> {
  const candidates = targetCandidates(registry, speech);
  const out: Record<string, string[]> = {};
  for (const from of byCommonThenName([...speech, ...ownLanguages(registry)])) {
    const reachable = reachableTargets(registry, candidates, from);
    if (reachable.length) out[from] = reachable;
  }
  return out;
}

/**
 * The translation_languages reachable from `from` (any tag, also one the offer does not list,
 * such as en-NZ): the valid_values of a refused translation language.
 */
export function translationTargets(registry: OfferedEngines, from: string): string[] {
  const offer = registry.offeredLanguages();
  const listed = offer.translation?.[from];
  if (listed) return listed;
  return reachableTargets(registry, targetCandidates(registry, [...(offer.live ?? []), ...(offer.import ?? [])]), from);
}

const ownLanguages = (registry: OfferedEngines) =>
  declared(registry, 'translator')
    .map((l) => normalizeLanguage(l))
    .filter((l): l is string => l !== null);

/**
 * The translators' declared languages; when one translates any pair ("*"), also the bare
 * speech languages and both Chinese scripts.
 */
function targetCandidates(registry: OfferedEngines, speech: string[]): Set<string> {
  const targets = new Set(ownLanguages(registry));
  const anyPair = registry.enginesOf('translator').some((t) => (t.capabilities.pairs ?? []).some(([, to]) => to === '*'));
  if (anyPair) {
    for (const s of speech) targets.add(isChinese(s) ? `zh-${chineseScript(s) === 'Hant' ? 'TW' : 'CN'}` : baseLanguage(s));
    targets.add('zh-CN');
    targets.add('zh-TW');
  }
  return targets;
}

/** Candidates served from `from`, without `from`'s own language (another Chinese script counts: zh-TW -> zh-CN converts). */
function reachableTargets(registry: OfferedEngines, candidates: Set<string>, from: string): string[] {
  const reachable = [...candidates].filter((to) => {
    const sameLanguage = baseLanguage(to) === baseLanguage(from);
    if (sameLanguage && !(isChinese(to) && chineseScript(to) !== chineseScript(from))) return false;
    return registry.serves({ kind: 'translator', from, to });
  });
  return byCommonThenName(reachable);
}
