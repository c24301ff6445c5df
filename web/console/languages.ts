/**
 * Languages in the pickers: what this server's engines serve (GET /api/v1/languages), loaded
 * once per page. Speech pickers list the languages of their use (live sessions, imports,
 * broadcasts are live); translation pickers the targets reachable from the chosen speech
 * language; both in the server's order (common choices first, then by name). A list the
 * server cannot give (null: an api process without recognizers, in a split deployment) falls
 * back to FALLBACK, and the server's check at start decides.
 */
import { useEffect, useState } from 'preact/hooks';
import { type LanguageOffer, parley } from './api';

export type Option = [code: string, name: string];

/** Used only when the server cannot say what it serves (see above). */
const FALLBACK_SPEECH = ['en-US', 'en-GB', 'es-ES', 'fr-FR', 'de-DE', 'it-IT', 'pt-BR', 'ja-JP', 'zh-CN', 'zh-TW'];
const FALLBACK_TRANSLATION = ['es', 'fr', 'de', 'it', 'pt', 'en', 'ca', 'gl', 'zh-CN', 'zh-TW'];

const displayNames = new Intl.DisplayNames(['en'], { type: 'language', languageDisplay: 'standard', fallback: 'code' });
const serverNames = new Map<string, string>();

/** The server's name for a code, else the browser's (English). */
export function languageName(code: string): string {
  const known = serverNames.get(code);
  if (known) return known;
  try {
    return displayNames.of(code) ?? code;
  } catch {
    return code;
  }
}

let loading: Promise<LanguageOffer> | null = null;

/** The offer, once loaded (undefined while loading; a failed load is tried again on the next mount). */
export function useLanguages(): LanguageOffer | undefined {
  const [offer, setOffer] = useState<LanguageOffer | undefined>(undefined);
  useEffect(() => {
    let live = true;
    loading ??= parley.languages().then((o) => {
      for (const [code, name] of Object.entries(o.names)) serverNames.set(code, name);
      return o;
    });
    loading.then(
      (o) => live && setOffer(o),
      () => {
        loading = null;
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return offer;
}

const options = (codes: readonly string[]): Option[] => codes.map((c) => [c, languageName(c)]);

/** Speech languages for a use: `live` (live sessions and broadcasts) or `import`. */
export function speechOptions(offer: LanguageOffer | undefined, use: 'live' | 'import'): Option[] {
  if (!offer) return [];
  return options(offer[use] ?? FALLBACK_SPEECH);
}

/** Translation targets reachable from `from` (none when nothing translates from it here). */
export function translationOptions(offer: LanguageOffer | undefined, from: string | undefined): Option[] {
  if (!offer || !from) return [];
  if (!offer.translation) return options(FALLBACK_TRANSLATION.filter((c) => c !== from));
  return options(offer.translation[from] ?? []);
}

/** `value` when the options hold it, else the first option (the pickers' default follows the server). */
export function offeredOr(value: string, list: Option[]): string {
  return list.some(([c]) => c === value) || list.length === 0 ? value : list[0]![0];
}

/**
 * The speech language and translation targets of a live picker (live sessions, broadcasts):
 * once the offer loads, the language moves to one served live when it is not, and targets no
 * longer reachable from it are dropped.
 */
export function useLivePick(initialLanguage: string, initialTargets: string[]) {
  const [language, setLanguage] = useState(initialLanguage);
  const [targets, setTargets] = useState<string[]>(initialTargets);
  const offer = useLanguages();
  const speechChoices = speechOptions(offer, 'live');
  const targetChoices = translationOptions(offer, language);
  useEffect(() => {
    if (!offer) return;
    const chosen = offeredOr(language, speechChoices);
    if (chosen !== language) setLanguage(chosen);
    const reachable = translationOptions(offer, chosen);
    if (targets.some((t) => !reachable.some(([c]) => c === t))) setTargets(targets.filter((t) => reachable.some(([c]) => c === t)));
  }, [offer, language]);
  return { offer, language, setLanguage, targets, setTargets, speechChoices, targetChoices };
}

/** "es, fr pt" -> ["es", "fr", "pt"] (distinct, in order). */
export const parseCodes = (text: string) => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];
