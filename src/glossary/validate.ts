/**
 * Parses and validates the three glossary fields. Every problem is reported (not only the
 * first) with the actual count or length, so the caller's 422 message is exact. Rules
 * (spec, "Text-processing rules"): per-language and combined limits both apply; `incorrect`
 * may be omitted only for a Chinese language whose `correct` contains Han characters.
 */
import { isChinese, normalizeLanguage } from '../languages.js';
import { jsonBoundsProblem } from '../platform/json-bounds.js';
import {
  ANY_LANGUAGE,
  DEFAULT_GLOSSARY_LIMITS,
  type DictEntry,
  type FuzzyRule,
  type Glossary,
  type GlossaryLimits,
  type GlossaryProblem,
  type TermEntry,
} from './types.js';

export interface GlossaryInput {
  /** Each field as sent: a JSON string (import form) or an already-parsed value (WebSocket). */
  terminology?: unknown;
  fuzzy_correction?: unknown;
  translation_dict?: unknown;
}

export type GlossaryParseResult = { ok: true; glossary: Glossary } | { ok: false; problems: GlossaryProblem[] };

const HAN = /\p{Script=Han}/u;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const length = (s: string) => [...s].length;

export function parseGlossary(input: GlossaryInput, limits: GlossaryLimits = DEFAULT_GLOSSARY_LIMITS): GlossaryParseResult {
  const problems: GlossaryProblem[] = [];
  const glossary: Glossary = { terminology: {}, fuzzyCorrection: {}, translationDict: {} };
  let bytes = 0;
  // Each field is bounded in depth and size (src/platform/json-bounds.ts) before anything here
  // walks it: JSON text from the import form once parsed, a value from a transport as given.
  const bounded = (field: string, value: unknown): unknown => {
    const problem = jsonBoundsProblem(value);
    if (!problem) return value;
    problems.push({ code: 'config_invalid_entry', field, message: `${field}: ${problem.message}`, limit: problem.limit });
    return undefined;
  };
  const decode = (field: string, raw: unknown): unknown => {
    if (raw === undefined || raw === null || raw === '') return undefined;
    if (typeof raw !== 'string') {
      const value = bounded(field, raw);
      if (value !== undefined) bytes += Buffer.byteLength(JSON.stringify(value) ?? '');
      return value;
    }
    bytes += Buffer.byteLength(raw);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      problems.push({ code: 'config_invalid_entry', field, message: `${field} is not valid JSON.` });
      return undefined;
    }
    return bounded(field, parsed);
  };
  const terms = decode('terminology', input.terminology);
  const fuzzy = decode('fuzzy_correction', input.fuzzy_correction);
  const dict = decode('translation_dict', input.translation_dict);
  if (bytes > limits.maxPayloadBytes)
    return {
      ok: false,
      problems: [
        {
          code: 'config_payload_too_large',
          field: 'glossary',
          message: `The glossary is ${bytes} bytes; at most ${limits.maxPayloadBytes} are accepted.`,
          actual: bytes,
          limit: limits.maxPayloadBytes,
        },
      ],
    };

  const languages = new Set<string>();
  const byLanguage = (field: string, value: unknown): Array<[string, unknown[]]> => {
    if (value === undefined) return [];
    if (!isObject(value)) {
      problems.push({ code: 'config_invalid_entry', field, message: `${field} must be an object mapping a language to a list.` });
      return [];
    }
    const out: Array<[string, unknown[]]> = [];
    for (const [key, list] of Object.entries(value)) {
      const lang = normalizeLanguage(key);
      if (!lang) {
        problems.push({ code: 'config_invalid_entry', field, language: key, message: `"${key}" is not a language code.` });
        continue;
      }
      if (!Array.isArray(list)) {
        problems.push({ code: 'config_invalid_entry', field, language: lang, message: `${field}.${key} must be a list.` });
        continue;
      }
      languages.add(lang);
      out.push([lang, list]);
    }
    return out;
  };
  const tooLong = (field: string, language: string, index: number, what: string, value: string, max: number) => {
    if (length(value) <= max) return false;
    problems.push({
      code: 'config_term_too_long',
      field,
      language,
      index,
      message: `${field}.${language}[${index}].${what} has ${length(value)} characters; at most ${max} are allowed.`,
      actual: length(value),
      limit: max,
    });
    return true;
  };
  const invalid = (field: string, language: string, index: number, message: string) =>
    problems.push({ code: 'config_invalid_entry', field, language, index, message: `${field}.${language}[${index}]: ${message}` });
  const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
  const countLimit = (
    code: 'config_too_many_entries' | 'config_too_many_dict_entries',
    field: string,
    language: string | undefined,
    actual: number,
    limit: number,
  ) => {
    if (actual <= limit) return;
    const where = language ? `${field}.${language}` : `${field} (all languages)`;
    problems.push({ code, field, language, message: `${where} has ${actual} entries; at most ${limit} are allowed.`, actual, limit });
  };

  // --- terminology ---
  let termsTotal = 0;
  for (const [lang, list] of byLanguage('terminology', terms)) {
    const entries: TermEntry[] = [];
    for (const [i, e] of list.entries()) {
      const term = isObject(e) ? e.term : typeof e === 'string' ? e : undefined;
      if (!nonEmptyString(term)) {
        invalid('terminology', lang, i, 'term is required.');
        continue;
      }
      if (!tooLong('terminology', lang, i, 'term', term, limits.termMaxChars)) entries.push({ term: term.trim() });
    }
    countLimit('config_too_many_entries', 'terminology', lang, list.length, limits.termsPerLanguage);
    termsTotal += list.length;
    glossary.terminology[lang] = entries;
  }
  countLimit('config_too_many_entries', 'terminology', undefined, termsTotal, limits.termsTotal);

  // --- fuzzy_correction ---
  let rulesTotal = 0;
  for (const [lang, list] of byLanguage('fuzzy_correction', fuzzy)) {
    const rules: FuzzyRule[] = [];
    for (const [i, e] of list.entries()) {
      if (!isObject(e)) {
        invalid('fuzzy_correction', lang, i, 'a rule must be an object.');
        continue;
      }
      const { correct, incorrect, case_insensitive } = e;
      if (!nonEmptyString(correct)) {
        invalid('fuzzy_correction', lang, i, 'correct is required.');
        continue;
      }
      if (case_insensitive !== undefined && typeof case_insensitive !== 'boolean') {
        invalid('fuzzy_correction', lang, i, 'case_insensitive must be a boolean.');
        continue;
      }
      const omitted = incorrect === undefined || (Array.isArray(incorrect) && incorrect.length === 0);
      if (omitted && !(isChinese(lang) && HAN.test(correct))) {
        invalid('fuzzy_correction', lang, i, 'incorrect is required (it may be omitted only for Chinese terms in Han characters).');
        continue;
      }
      if (!omitted && (!Array.isArray(incorrect) || !incorrect.every(nonEmptyString))) {
        invalid('fuzzy_correction', lang, i, 'incorrect must be a list of non-empty strings.');
        continue;
      }
      const variants = omitted ? [] : (incorrect as string[]);
      let long = tooLong('fuzzy_correction', lang, i, 'correct', correct, limits.fuzzyMaxChars);
      variants.forEach((v, k) => {
        long = tooLong('fuzzy_correction', lang, i, `incorrect[${k}]`, v, limits.fuzzyMaxChars) || long;
      });
      if (!long) rules.push({ correct, incorrect: variants, case_insensitive: case_insensitive === true });
    }
    countLimit('config_too_many_entries', 'fuzzy_correction', lang, list.length, limits.fuzzyRulesPerLanguage);
    rulesTotal += list.length;
    glossary.fuzzyCorrection[lang] = rules;
  }
  countLimit('config_too_many_entries', 'fuzzy_correction', undefined, rulesTotal, limits.fuzzyRulesTotal);

  // --- translation_dict (object by target language, or the older array of entries) ---
  const dictLists: Array<[string, unknown[]]> = [];
  if (Array.isArray(dict)) {
    // Older format: [{source, target, case_sensitive?, language?}]; no language = every target.
    const grouped = new Map<string, unknown[]>();
    for (const e of dict) {
      const raw = isObject(e) ? (e.language ?? e.target_language ?? e.lang) : undefined;
      const lang = typeof raw === 'string' ? (normalizeLanguage(raw) ?? raw) : ANY_LANGUAGE;
      if (lang !== ANY_LANGUAGE) languages.add(lang);
      const list = grouped.get(lang);
      if (list) list.push(e);
      else grouped.set(lang, [e]);
    }
    dictLists.push(...grouped);
  } else dictLists.push(...byLanguage('translation_dict', dict));
  for (const [lang, list] of dictLists) {
    const entries: DictEntry[] = [];
    for (const [i, e] of list.entries()) {
      if (!isObject(e)) {
        invalid('translation_dict', lang, i, 'an entry must be an object.');
        continue;
      }
      const { source, target, case_sensitive } = e;
      if (!nonEmptyString(source) || !nonEmptyString(target)) {
        invalid('translation_dict', lang, i, 'source and target are required.');
        continue;
      }
      if (case_sensitive !== undefined && typeof case_sensitive !== 'boolean') {
        invalid('translation_dict', lang, i, 'case_sensitive must be a boolean.');
        continue;
      }
      const a = tooLong('translation_dict', lang, i, 'source', source, limits.dictMaxChars);
      const b = tooLong('translation_dict', lang, i, 'target', target, limits.dictMaxChars);
      if (!a && !b) entries.push({ source, target, case_sensitive: case_sensitive === true });
    }
    countLimit('config_too_many_dict_entries', 'translation_dict', lang, list.length, limits.dictEntriesPerLanguage);
    glossary.translationDict[lang] = entries;
  }

  if (languages.size > limits.maxLanguages)
    problems.push({
      code: 'config_too_many_languages',
      field: 'glossary',
      message: `The glossary names ${languages.size} languages; at most ${limits.maxLanguages} are allowed.`,
      actual: languages.size,
      limit: limits.maxLanguages,
    });
  const provided = [terms, fuzzy, dict].some((v) => v !== undefined);
  const entries = termsTotal + rulesTotal + dictLists.reduce((n, [, l]) => n + l.length, 0);
  if (problems.length === 0 && provided && entries === 0)
    problems.push({ code: 'config_empty', field: 'glossary', message: 'The glossary has no entries.', actual: 0 });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, glossary };
}
