/**
 * The summary fields of the SSE endpoints, read by hand from the GET query (strings) or the
 * POST body (JSON), with the spec's rules ("Regenerate summary"):
 * - mode `builtin` | `custom` (required); template only for builtin (required there);
 *   prompt (max 3000) and promptSlug (max 64, no control characters) only for custom
 *   (both required there); language optional; plainText boolean, default false.
 * - a field the mode forbids is `summary_mode_field_mismatch` (an AppError: 422 over SSE);
 * - anything else wrong (missing, wrong type, too long, malformed) is a `ParameterError`,
 *   which the routes send as an `error` event carrying only `message`.
 */
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';

export const MAX_PROMPT_CHARS = 3000;
export const MAX_PROMPT_SLUG_CHARS = 64;
export const MAX_TEMPLATE_SLUG_CHARS = 50;
/** Spec Limits: "Transcript length for summary: max 200000 characters". */
export const MAX_SUMMARY_INPUT_CHARS = 200_000;
const MAX_LANGUAGE_CHARS = 20;

/** A parameter the spec's field rules refuse: sent as an `error` event with only `message`. */
export class ParameterError extends Error {}

export interface SummaryParams {
  mode: 'builtin' | 'custom';
  template: string | null;
  prompt: string | null;
  promptSlug: string | null;
  /** Normalized output language; null: the caller's default. */
  language: string | null;
  plainText: boolean;
}

type Raw = Record<string, unknown>;

/** Where the fields come from: GET query values are strings, POST bodies JSON values. */
export type FieldSource = 'query' | 'body';

const CONTROL = /[\p{Cc}\p{Cf}]/u;

/** Reads the object a GET query or POST body gave (anything else is a parameter failure). */
export function asFields(input: unknown): Raw {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new ParameterError('The request body must be a JSON object.');
  return input as Raw;
}

export function optionalString(fields: Raw, name: string, max: number): string | null {
  const v = fields[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ParameterError(`${name} must be a string.`);
  if ([...v].length > max) throw new ParameterError(`${name} must be at most ${max} characters.`);
  return v;
}

export function requiredString(fields: Raw, name: string, max: number): string {
  const v = optionalString(fields, name, max);
  if (v === null || !v.trim()) throw new ParameterError(`${name} is required.`);
  return v;
}

export function optionalLanguage(fields: Raw, name: string): string | null {
  const raw = optionalString(fields, name, MAX_LANGUAGE_CHARS);
  if (raw === null || raw === '') return null;
  const lang = normalizeLanguage(raw);
  if (!lang) throw new ParameterError(`${name} must be a language code such as en-US.`);
  return lang;
}

export function requiredLanguage(fields: Raw, name: string): string {
  const lang = optionalLanguage(fields, name);
  if (!lang) throw new ParameterError(`${name} is required.`);
  return lang;
}

function booleanField(fields: Raw, name: string, source: FieldSource): boolean {
  const v = fields[name];
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  // A query string carries text: "true"/"false" (and 1/0) are the booleans a URL can say.
  if (source === 'query' && typeof v === 'string' && /^(true|false|1|0)$/i.test(v)) return /^(true|1)$/i.test(v);
  throw new ParameterError(`${name} must be a boolean.`);
}

export function parseSummaryParams(input: unknown, source: FieldSource): SummaryParams {
  const f = asFields(input);
  const mode = f.mode;
  if (mode === undefined || mode === null || mode === '') throw new ParameterError('mode is required (builtin or custom).');
  if (mode !== 'builtin' && mode !== 'custom') throw new ParameterError('mode must be builtin or custom.');
  const present = (k: string) => f[k] !== undefined && f[k] !== null;
  const forbidden = mode === 'builtin' ? ['prompt', 'promptSlug'] : ['template'];
  const extra = forbidden.filter(present);
  if (extra.length) {
    throw new AppError('summary_mode_field_mismatch', {
      message: `${extra.join(' and ')} cannot be used with mode ${mode}.`,
      details: { field: extra[0], mode },
    });
  }
  const params: SummaryParams = {
    mode,
    template: null,
    prompt: null,
    promptSlug: null,
    language: optionalLanguage(f, 'language'),
    plainText: booleanField(f, 'plainText', source),
  };
  if (mode === 'builtin') {
    params.template = requiredString(f, 'template', MAX_TEMPLATE_SLUG_CHARS);
  } else {
    params.prompt = requiredString(f, 'prompt', MAX_PROMPT_CHARS);
    params.promptSlug = requiredString(f, 'promptSlug', MAX_PROMPT_SLUG_CHARS);
    if (CONTROL.test(params.promptSlug)) throw new ParameterError('promptSlug must not contain control characters.');
  }
  return params;
}
