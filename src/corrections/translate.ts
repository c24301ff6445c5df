/**
 * A corrected sentence into each of its target languages (the glossary's dictionary applied,
 * as every other translation): shared by the REST service and the live action.
 */
import type { Logger } from 'pino';
import type { EngineRegistry } from '../engines/registry.js';
import type { Glossary } from '../glossary/index.js';
import { translateOne } from '../processing/translate.js';

export interface Retranslated {
  translations: Record<string, string>;
  errors: Record<string, string>;
}

export async function translateCorrection(
  deps: { engines: EngineRegistry; logger: Logger },
  sentence: { sid: number; text: string; language: string },
  targets: readonly string[],
  glossary: Glossary | null = null,
): Promise<Retranslated> {
  const out: Retranslated = { translations: {}, errors: {} };
  const record = {
    sid: sentence.sid,
    origin: sentence.text,
    startMs: 0,
    endMs: 0,
    speakerId: null,
    language: sentence.language,
    translations: null,
    translationErrors: null,
  };
  for (const to of targets) {
    const r = await translateOne(deps, record, sentence.language, to, glossary);
    if (r.error) out.errors[to] = r.error;
    else out.translations[to] = r.text ?? '';
  }
  return out;
}

/** The languages a sentence is translated into: those it has (text or error) and the task's. */
export function targetLanguages(
  task: readonly string[] | null,
  translations: Record<string, string> | null,
  errors: Record<string, string> | null,
): string[] {
  return [...new Set([...(task ?? []), ...Object.keys(translations ?? {}), ...Object.keys(errors ?? {})])];
}
