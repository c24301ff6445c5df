/**
 * The import form's fields (spec "Form fields of POST /api/v1/imports"), validated into
 * `ImportOptions`. Values arrive as strings (multipart); the list fields are JSON strings.
 * Violations are 422 `validation_failed` with `details.field` (and the actual count where a
 * limit applies), `summary_mode_field_mismatch` (400) for the summary mode rules and 422
 * `import_recognition_mode_unsupported` for the modes imports do not take.
 */
import { type Glossary, type GlossaryLimits, glossaryImportError, parseGlossary } from '../glossary/index.js';
import { validateWebhookUrl } from '../keys/service.js';
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';

export const MAX_TRANSCRIPTION_LANGUAGES = 10;
export const MAX_TRANSLATION_LANGUAGES = 12;
const MAX_TEMPLATE = 50;
const MAX_PROMPT = 3000;
const MAX_PROMPT_SLUG = 64;
const MAX_CALLBACK_URL = 2048;
const RECOGNITION_MODES = ['single', 'multi_speaker', 'multi_language', 'multi_channel'] as const;
const IMPORT_MODES = ['single', 'multi_speaker'] as const;

/** Every text field the form may carry; anything else is refused (a typo must not pass silently). */
export const IMPORT_FIELDS = [
  'transcription_languages',
  'translation_languages',
  'recognition_mode',
  'summary_template',
  'summary_mode',
  'summary_prompt',
  'summary_prompt_slug',
  'terminology',
  'fuzzy_correction',
  'translation_dict',
  'callback_url',
] as const;

export interface ImportSummaryOptions {
  mode: 'builtin' | 'custom';
  /** builtin: the template slug; custom: the caller's prompt slug. */
  template: string;
  prompt: string | null;
}

export interface ImportOptions {
  transcriptionLanguages: string[];
  translationLanguages: string[];
  recognitionMode: 'single' | 'multi_speaker';
  summary: ImportSummaryOptions | null;
  glossary: Glossary | null;
}

const invalid = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError('validation_failed', { message, details: { field, ...extra } });

function text(fields: Map<string, string>, name: string, max: number): string | null {
  const v = fields.get(name);
  if (v === undefined) return null;
  const trimmed = v.trim();
  if (trimmed === '') return null;
  if ([...v].length > max) throw invalid(name, `${name} is longer than ${max} characters.`, { max, actual: [...v].length });
  return trimmed;
}

function languages(fields: Map<string, string>, name: string, max: number, required: boolean): string[] {
  const raw = fields.get(name);
  if (raw === undefined || raw.trim() === '') {
    if (required) throw invalid(name, `${name} is required: a JSON array of language codes.`);
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid(name, `${name} must be a JSON array of language codes.`);
  }
  if (!Array.isArray(parsed) || parsed.some((l) => typeof l !== 'string')) throw invalid(name, `${name} must be a JSON array of strings.`);
  if (required && parsed.length === 0) throw invalid(name, `${name} needs at least one language.`);
  if (parsed.length > max) throw invalid(name, `At most ${max} ${name}; got ${parsed.length}.`, { max, actual: parsed.length });
  const out: string[] = [];
  for (const l of parsed as string[]) {
    const tag = normalizeLanguage(l);
    if (!tag) throw invalid(name, `"${l}" is not a language code (BCP 47, e.g. en-US).`);
    if (out.includes(tag)) throw invalid(name, `${name} lists "${tag}" twice.`, { duplicate: tag });
    out.push(tag);
  }
  return out;
}

function callbackUrl(fields: Map<string, string>): string | null {
  const v = text(fields, 'callback_url', MAX_CALLBACK_URL);
  return v === null ? null : validateWebhookUrl(v, 'callback_url');
}

export interface ParsedImportForm {
  options: ImportOptions;
  callbackUrl: string | null;
}

/** Validates the text fields of the form (the file is checked separately). */
export function parseImportForm(
  fields: Map<string, string>,
  deps: { templates: SummaryTemplateCatalogue; glossaryLimits: GlossaryLimits },
): ParsedImportForm {
  for (const name of fields.keys()) {
    if (!(IMPORT_FIELDS as readonly string[]).includes(name))
      throw invalid(name, `Unknown form field "${name}".`, { valid_values: IMPORT_FIELDS });
  }
  const modeRaw = fields.get('recognition_mode');
  if (modeRaw === undefined || modeRaw.trim() === '') {
    throw invalid('recognition_mode', 'recognition_mode is required.', { valid_values: IMPORT_MODES });
  }
  if (!(RECOGNITION_MODES as readonly string[]).includes(modeRaw)) {
    throw invalid('recognition_mode', `recognition_mode must be one of ${IMPORT_MODES.join(', ')}.`, { valid_values: IMPORT_MODES });
  }
  if (!(IMPORT_MODES as readonly string[]).includes(modeRaw)) {
    throw new AppError('import_recognition_mode_unsupported', {
      message: `Imports support only ${IMPORT_MODES.join(' and ')}; "${modeRaw}" needs a live session.`,
      details: { field: 'recognition_mode', valid_values: IMPORT_MODES },
    });
  }
  const transcriptionLanguages = languages(fields, 'transcription_languages', MAX_TRANSCRIPTION_LANGUAGES, true);
  const translationLanguages = languages(fields, 'translation_languages', MAX_TRANSLATION_LANGUAGES, false);

  const summary = summaryOptions(fields, deps.templates);
  const glossary = glossaryOptions(fields, deps.glossaryLimits);
  return {
    options: {
      transcriptionLanguages,
      translationLanguages,
      recognitionMode: modeRaw as ImportOptions['recognitionMode'],
      summary,
      glossary,
    },
    callbackUrl: callbackUrl(fields),
  };
}

function summaryOptions(fields: Map<string, string>, templates: SummaryTemplateCatalogue): ImportSummaryOptions | null {
  const modeRaw = text(fields, 'summary_mode', 20);
  if (modeRaw !== null && modeRaw !== 'builtin' && modeRaw !== 'custom') {
    throw invalid('summary_mode', 'summary_mode must be builtin or custom.', { valid_values: ['builtin', 'custom'] });
  }
  const mode = (modeRaw ?? 'builtin') as 'builtin' | 'custom';
  const template = text(fields, 'summary_template', MAX_TEMPLATE);
  const prompt = text(fields, 'summary_prompt', MAX_PROMPT);
  const promptSlug = text(fields, 'summary_prompt_slug', MAX_PROMPT_SLUG);
  const mismatch = (field: string, message: string) =>
    new AppError('summary_mode_field_mismatch', { message, details: { field, summary_mode: mode } });
  if (mode === 'custom') {
    if (prompt === null) throw mismatch('summary_prompt', 'summary_mode "custom" needs summary_prompt.');
    if (promptSlug === null) throw mismatch('summary_prompt_slug', 'summary_mode "custom" needs summary_prompt_slug.');
    if (template !== null) throw mismatch('summary_template', 'summary_mode "custom" takes summary_prompt_slug, not summary_template.');
    return { mode, template: promptSlug, prompt };
  }
  if (prompt !== null) throw mismatch('summary_prompt', 'summary_prompt is only for summary_mode "custom".');
  if (promptSlug !== null) throw mismatch('summary_prompt_slug', 'summary_prompt_slug is only for summary_mode "custom".');
  if (template === null) return null;
  if (!templates.getEnabledTemplate(template)) {
    const valid = templates.list('all').map((t) => t.slug);
    throw invalid('summary_template', `"${template}" is not an enabled summary template; use one of: ${valid.join(', ')}.`, {
      valid_values: valid,
    });
  }
  return { mode, template, prompt: null };
}

function glossaryOptions(fields: Map<string, string>, limits: GlossaryLimits): Glossary | null {
  const input = {
    terminology: fields.get('terminology'),
    fuzzy_correction: fields.get('fuzzy_correction'),
    translation_dict: fields.get('translation_dict'),
  };
  if (Object.values(input).every((v) => v === undefined || v.trim() === '')) return null;
  const r = parseGlossary(input, limits);
  if (!r.ok) throw glossaryImportError(r.problems);
  return r.glossary;
}
