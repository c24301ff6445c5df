/**
 * The translation dictionary around any translator: source phrases are swapped for opaque
 * placeholders before translation (so the engine cannot mistranslate them) and the
 * dictionary's target phrases are put in afterwards.
 *
 * Decisions:
 * - Entries are keyed by target language; "es" entries serve every "es-*" target, and the
 *   older array format's entries without a language serve every target.
 * - case_sensitive=false (default): the source matches in any case. It is the opposite
 *   flag and default of fuzzy correction's case_insensitive; the two are never mirrored.
 * - Whole words for alphabetic scripts, substrings for CJK (see match.ts).
 * - Placeholders are "QZX<n>QZX": letters and digits only, which rule-based engines pass
 *   through as an unknown word and LLMs copy. If an engine drops one, the sentence is still
 *   returned (without that term) rather than failing.
 */
import { languageServes } from '../languages.js';
import { phrasesRegExp } from './match.js';
import { ANY_LANGUAGE, type DictEntry, type Glossary } from './types.js';

const PLACEHOLDER = /QZX(\d+)QZX/gi;

export function dictionaryFor(glossary: Glossary, targetLanguage: string): DictEntry[] {
  return Object.entries(glossary.translationDict)
    .filter(([lang]) => lang === ANY_LANGUAGE || languageServes(lang, targetLanguage))
    .flatMap(([, list]) => list);
}

/** Replaces dictionary sources with placeholders; returns the targets in placeholder order. */
export function protectTerms(text: string, entries: DictEntry[]): { text: string; targets: string[] } {
  const targets: string[] = [];
  if (entries.length === 0) return { text, targets };
  const sensitive = new Map(entries.filter((e) => e.case_sensitive).map((e) => [e.source, e.target]));
  const insensitive = new Map(entries.filter((e) => !e.case_sensitive).map((e) => [e.source.toLowerCase(), e.target]));
  const regex = phrasesRegExp(
    entries.map((e) => e.source),
    insensitive.size > 0,
  );
  if (!regex) return { text, targets };
  const out = text.replace(regex, (m) => {
    const target = sensitive.get(m) ?? insensitive.get(m.toLowerCase());
    if (target === undefined) return m;
    targets.push(target);
    return `QZX${targets.length - 1}QZX`;
  });
  return { text: out, targets };
}

export function restoreTerms(translated: string, targets: string[]): string {
  if (targets.length === 0) return translated;
  return translated.replace(PLACEHOLDER, (m, n: string) => targets[Number(n)] ?? m);
}

/** Translates `text` with `translate`, applying the dictionary of the target language. */
export async function translateWithDictionary(
  text: string,
  entries: DictEntry[],
  translate: (text: string) => Promise<string>,
): Promise<string> {
  const { text: protectedText, targets } = protectTerms(text, entries);
  // A sentence that is entirely one dictionary term needs no engine.
  if (targets.length === 1 && protectedText.trim() === 'QZX0QZX') return protectedText.replace('QZX0QZX', targets[0]!);
  return restoreTerms(await translate(protectedText), targets);
}
