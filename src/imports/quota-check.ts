/**
 * The import quota check's request (spec "Imports": `duration_ms`) and Parley's extension of
 * it: what the import will ask for (`translation_languages`, `recognition_mode`, `summary`),
 * so the answer's `estimate` prices all of it, not speech recognition alone (docs/imports.md
 * "The quota check"). Every extension field is optional; a request with `duration_ms` only is
 * the spec's. Wrong values are 422 `validation_failed` with `details.field`.
 */
import { AppError } from '../platform/errors/app-error.js';
import { MAX_TRANSLATION_LANGUAGES } from './options.js';

export interface QuotaCheckRequest {
  durationMs: number;
  translationLanguages: number;
  diarization: boolean;
  summary: boolean;
}

const invalid = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError('validation_failed', { message, details: { field, ...extra } });

export function parseQuotaCheck(body: unknown, bounds: { minDurationMs: number; maxDurationMs: number }): QuotaCheckRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('duration_ms', 'The body must be a JSON object with duration_ms.');
  }
  const b = body as Record<string, unknown>;
  const { minDurationMs: min, maxDurationMs: max } = bounds;
  const d = b.duration_ms;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < min || d > max) {
    throw invalid('duration_ms', `duration_ms must be a whole number from ${min} to ${max}.`, { min, max });
  }
  const targets = b.translation_languages ?? [];
  if (!Array.isArray(targets) || targets.some((l) => typeof l !== 'string' || l.trim() === '')) {
    throw invalid('translation_languages', 'translation_languages must be an array of language codes.');
  }
  if (targets.length > MAX_TRANSLATION_LANGUAGES) {
    throw invalid('translation_languages', `At most ${MAX_TRANSLATION_LANGUAGES} translation_languages; got ${targets.length}.`, {
      max: MAX_TRANSLATION_LANGUAGES,
      actual: targets.length,
    });
  }
  if (new Set(targets).size !== targets.length) throw invalid('translation_languages', 'translation_languages has a duplicate.');
  const mode = b.recognition_mode ?? 'single';
  if (mode !== 'single' && mode !== 'multi_speaker') {
    throw invalid('recognition_mode', 'recognition_mode must be single or multi_speaker.', { valid_values: ['single', 'multi_speaker'] });
  }
  const summary = b.summary ?? false;
  if (typeof summary !== 'boolean') throw invalid('summary', 'summary must be true or false.');
  return { durationMs: d, translationLanguages: targets.length, diarization: mode === 'multi_speaker', summary };
}
