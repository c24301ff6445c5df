/**
 * Languages offered in the pickers. The server decides what it can do (its engines answer
 * with an error for a language they lack); the list is what people pick most, and every
 * picker also takes a typed BCP 47 code.
 */
export const SPEECH_LANGUAGES: Array<[code: string, name: string]> = [
  ['en-US', 'English (US)'],
  ['en-GB', 'English (UK)'],
  ['es-ES', 'Spanish (Spain)'],
  ['fr-FR', 'French'],
  ['de-DE', 'German'],
  ['it-IT', 'Italian'],
  ['pt-BR', 'Portuguese (Brazil)'],
  ['ja-JP', 'Japanese'],
  ['zh-CN', 'Chinese (Simplified)'],
  ['zh-TW', 'Chinese (Traditional)'],
];

export const TRANSLATION_LANGUAGES: Array<[code: string, name: string]> = [
  ['es', 'Spanish'],
  ['ca', 'Catalan'],
  ['fr', 'French'],
  ['pt', 'Portuguese'],
  ['it', 'Italian'],
  ['gl', 'Galician'],
  ['de', 'German'],
  ['en', 'English'],
  ['zh-TW', 'Chinese (Traditional)'],
  ['zh-CN', 'Chinese (Simplified)'],
];

const NAMES = new Map([...SPEECH_LANGUAGES, ...TRANSLATION_LANGUAGES]);
export const languageName = (code: string) => NAMES.get(code) ?? code;

/** "es, fr pt" -> ["es", "fr", "pt"] (distinct, in order). */
export const parseCodes = (text: string) => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];
