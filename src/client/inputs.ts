/**
 * Inputs the route schemas leave open (routes that check them by hand to answer with the
 * interface's own codes, and JSON fields of the import form), written once here from the
 * interface specification. Output types all come from api-types.ts.
 */

/** Glossary of imports, live `config` and /glossary/validate: language -> entries. */
export interface Glossary {
  terminology?: Record<string, { term: string }[]>;
  fuzzy_correction?: Record<string, { correct: string; incorrect?: string[]; case_insensitive?: boolean }[]>;
  translation_dict?: Record<string, { source: string; target: string; case_sensitive?: boolean }[]>;
}

/** POST /api/v1/imports, as a client writes it (arrays and glossary objects, not JSON text). */
export interface ImportInput extends Glossary {
  /** mp3, wav or m4a (the format is read from the content). In Node: `await openAsBlob(path)`. */
  file: Blob;
  /** File name sent with the file (default "audio"). */
  filename?: string;
  transcription_languages: string[];
  translation_languages?: string[];
  recognition_mode: 'single' | 'multi_speaker' | (string & {});
  summary_template?: string;
  summary_mode?: 'builtin' | 'custom';
  summary_prompt?: string;
  summary_prompt_slug?: string;
  callback_url?: string;
}

/** Summary parameters of regenerate (GET preview, POST persist) and ad-hoc summaries. */
export interface SummaryInput {
  mode: 'builtin' | 'custom';
  /** builtin only: an enabled template slug. */
  template?: string;
  /** custom only: the instructions (max 3000 characters). */
  prompt?: string;
  /** custom only: your slug for the prompt (max 64). */
  promptSlug?: string;
  /** Output language; default the first transcription language (ad hoc: the text's language). */
  language?: string;
  plainText?: boolean;
}

export interface TtsStreamInput {
  /** Language to speak (a translation language of the task). */
  language: string;
  voice?: string;
  /** First sentence (default 1). */
  sid?: number;
  /** Number of sentences (default 1, max 20). */
  length?: number;
}

export interface SummaryTranslateInput {
  text: string;
  targetLang: string;
  sourceLang?: string;
}
