/**
 * Applying a glossary to recognized text, in this order: fuzzy correction (misrecognized
 * variants -> the correct form), then terminology (terms get their canonical casing).
 *
 * Decisions (spec "Text-processing rules"):
 * - Rules for "en" apply to every "en-*"; rules for "en-US" only to en-US (languageServes).
 * - case_insensitive=false (default): a variant matches only with exactly its case.
 * - Chinese rules ignore case_insensitive (always exact).
 * - A variant listed by several rules ("collision") is resolved per variant, compared
 *   case-insensitively: if any of those rules is strict, the variant matches strictly (exact
 *   case) and the first strict rule's `correct` wins; otherwise the first rule wins.
 * - A Chinese rule without `incorrect` replaces nothing: its `correct` is a term hint (see
 *   `termHints`), for recognizers that accept hot words and for terminology casing.
 * - One pass, longest variant first: a correction's output is never corrected again.
 */
import { isChinese, languageServes } from '../languages.js';
import { escapeRegExp, phrasePattern, phrasesRegExp } from './match.js';
import type { FuzzyRule, Glossary, TermEntry } from './types.js';

function forLanguage<T>(map: Record<string, T[]>, language: string): T[] {
  return Object.entries(map)
    .filter(([lang]) => languageServes(lang, language))
    .flatMap(([, list]) => list);
}

interface Corrector {
  exact: Map<string, string>;
  folded: Map<string, string>;
  regex: RegExp | null;
}

/** Built once per glossary and language: sessions apply the same glossary to every sentence. */
const correctorCache = new WeakMap<Glossary, Map<string, Corrector>>();

function buildCorrector(rules: Array<FuzzyRule & { chinese: boolean }>): Corrector {
  // Group variants by their case-folded form to find collisions.
  const groups = new Map<string, Array<{ variant: string; correct: string; strict: boolean }>>();
  for (const r of rules)
    for (const variant of r.incorrect) {
      const key = variant.toLowerCase();
      groups.set(key, [...(groups.get(key) ?? []), { variant, correct: r.correct, strict: r.chinese || !r.case_insensitive }]);
    }
  const exact = new Map<string, string>();
  const folded = new Map<string, string>();
  for (const [key, members] of groups) {
    const strict = members.filter((m) => m.strict);
    if (strict.length > 0) {
      // Strict wins: every member's variant matches only with its own case.
      for (const m of members)
        if (!exact.has(m.variant)) exact.set(m.variant, strict.find((s) => s.variant === m.variant)?.correct ?? strict[0]!.correct);
    } else folded.set(key, members[0]!.correct);
  }
  const all = [...exact.keys(), ...[...groups.keys()].filter((k) => folded.has(k))];
  return { exact, folded, regex: phrasesRegExp(all, folded.size > 0) };
}

/** Replaces misrecognized variants with the correct form. */
export function applyFuzzyCorrection(text: string, language: string, glossary: Glossary): string {
  let perLang = correctorCache.get(glossary);
  if (!perLang) {
    perLang = new Map();
    correctorCache.set(glossary, perLang);
  }
  let corrector = perLang.get(language);
  if (!corrector) {
    const chinese = isChinese(language);
    corrector = buildCorrector(forLanguage(glossary.fuzzyCorrection, language).map((r) => ({ ...r, chinese })));
    perLang.set(language, corrector);
  }
  const { exact, folded } = corrector;
  if (!corrector.regex) return text;
  return text.replace(corrector.regex, (m) => exact.get(m) ?? folded.get(m.toLowerCase()) ?? m);
}

/**
 * Gives each terminology term its canonical form wherever it appears in another case, or, for
 * a one-word term, written apart: a recognizer that does not know "Picovoice" as one word
 * (Whisper hears "Pico voice" even when biased towards the term) still shows the term as given.
 */
export function applyTerminology(text: string, language: string, glossary: Glossary): string {
  const terms = forLanguage<TermEntry>(glossary.terminology, language).map((t) => t.term);
  const regex = termsRegExp(terms);
  if (!regex) return text;
  const canonical = new Map(terms.map((t) => [t.toLowerCase(), t]));
  return text.replace(regex, (m) => canonical.get(m.toLowerCase()) ?? canonical.get(m.replace(SPLIT, '').toLowerCase()) ?? m);
}

/** What may stand between the parts of a one-word term written apart: one space or hyphen. */
const SPLIT = /[ -]/g;
/** One-word terms of letters and digits (not CJK: no spaces there) are matched written apart too. */
const ONE_WORD = /^(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}]{4,}$/u;

function termsRegExp(terms: readonly string[]): RegExp | null {
  const list = [...new Set(terms)].filter((t) => t !== '').sort((a, b) => [...b].length - [...a].length);
  if (list.length === 0) return null;
  const patterns = list.map((t) => {
    const plain = phrasePattern(t);
    if (!ONE_WORD.test(t) || [...t].some((c) => !/[\p{L}\p{N}]/u.test(c))) return plain;
    const chars = [...t];
    const apart = chars.map(escapeRegExp).join('[ -]?');
    return plain.replace(escapeRegExp(t), apart);
  });
  return new RegExp(patterns.join('|'), 'giu');
}

/** Fuzzy correction then terminology: what recognized text goes through before anyone sees it. */
export function applyGlossary(text: string, language: string, glossary: Glossary): string {
  return applyTerminology(applyFuzzyCorrection(text, language, glossary), language, glossary);
}

/** Terms a recognizer may be biased towards: terminology plus the corrects of all rules. */
export function termHints(language: string, glossary: Glossary): string[] {
  const terms = forLanguage(glossary.terminology, language).map((t) => t.term);
  const corrects = forLanguage(glossary.fuzzyCorrection, language).map((r) => r.correct);
  return [...new Set([...terms, ...corrects])];
}
