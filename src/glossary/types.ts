/**
 * Glossary: the three per-language lists a caller can send with an import (form fields
 * `terminology`, `fuzzy_correction`, `translation_dict`) or a live session (`config`).
 * Keys are normalized language tags; `translation_dict` is keyed by the target language.
 */

export interface TermEntry {
  term: string;
}

export interface FuzzyRule {
  correct: string;
  /** Misrecognized variants. Empty only for a Chinese rule whose `correct` has Han characters: a term hint. */
  incorrect: string[];
  /** Default false: a variant matches with exactly its case. Ignored for Chinese rules. */
  case_insensitive: boolean;
}

export interface DictEntry {
  source: string;
  target: string;
  /** Default false: the source matches in any case (the opposite default of case_insensitive). */
  case_sensitive: boolean;
}

/** Key of dictionary entries from the older array format that named no target language. */
export const ANY_LANGUAGE = '*';

export interface Glossary {
  terminology: Record<string, TermEntry[]>;
  fuzzyCorrection: Record<string, FuzzyRule[]>;
  translationDict: Record<string, DictEntry[]>;
}

export interface GlossaryLimits {
  termMaxChars: number;
  termsPerLanguage: number;
  termsTotal: number;
  fuzzyMaxChars: number;
  fuzzyRulesPerLanguage: number;
  fuzzyRulesTotal: number;
  dictMaxChars: number;
  dictEntriesPerLanguage: number;
  maxLanguages: number;
  maxPayloadBytes: number;
}

/** The spec's defaults; environments may tune them (see src/engines/settings.ts). */
export const DEFAULT_GLOSSARY_LIMITS: GlossaryLimits = {
  termMaxChars: 100,
  termsPerLanguage: 500,
  termsTotal: 500,
  fuzzyMaxChars: 200,
  fuzzyRulesPerLanguage: 4000,
  fuzzyRulesTotal: 4000,
  dictMaxChars: 200,
  dictEntriesPerLanguage: 3000,
  maxLanguages: 24,
  maxPayloadBytes: 1_048_576,
};

export type GlossaryProblemCode =
  | 'config_empty'
  | 'config_term_too_long'
  | 'config_too_many_entries'
  | 'config_too_many_dict_entries'
  | 'config_invalid_entry'
  | 'config_too_many_languages'
  | 'config_payload_too_large';

/**
 * One thing wrong with a glossary. Transports map it to their own error: the import form
 * answers 422 `validation_failed` with these as details; the WebSocket `config` action
 * sends the `code` itself (400, or 413 for config_payload_too_large).
 */
export interface GlossaryProblem {
  code: GlossaryProblemCode;
  /** `terminology`, `fuzzy_correction` or `translation_dict`. */
  field: string;
  language?: string;
  index?: number;
  message: string;
  actual?: number;
  limit?: number;
}
