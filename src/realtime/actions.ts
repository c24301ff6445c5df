/**
 * Parameters of the session actions the spec names without shaping them (README "Live
 * sessions" documents them): config, set_name, set_summary, retranslate, switch_language.
 * Each parser is pure: it returns the value to apply or the AppError the client is sent.
 */

import { type Glossary, type GlossaryLimits, glossarySocketError, parseGlossary } from '../glossary/index.js';
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import { taskNameProblem } from '../tasks/name.js';
import { type EngineQuery, type StartRequest, validateStart } from './start.js';

const ws = { variant: 'websocket' as const };
const invalid = (field: string, message: string, validValues?: readonly unknown[]) =>
  new AppError('invalid_parameter', { ...ws, message, details: validValues ? { field, valid_values: [...validValues] } : { field } });

export const GLOSSARY_FIELDS = ['terminology', 'fuzzy_correction', 'translation_dict'] as const;

/**
 * config: `terminology`, `fuzzy_correction`, `translation_dict` (objects, or JSON strings as
 * in the import form) replace the session glossary; `clear: true` removes it. Null glossary
 * means "cleared".
 */
export function parseConfig(data: Record<string, unknown>, limits: GlossaryLimits): { glossary: Glossary | null } | AppError {
  if (data.clear === true) return { glossary: null };
  if (GLOSSARY_FIELDS.every((f) => data[f] === undefined || data[f] === null)) {
    return new AppError('config_empty', {
      ...ws,
      message: 'Send terminology, fuzzy_correction or translation_dict (or clear: true).',
      details: { fields: [...GLOSSARY_FIELDS] },
    });
  }
  const parsed = parseGlossary(
    { terminology: data.terminology, fuzzy_correction: data.fuzzy_correction, translation_dict: data.translation_dict },
    limits,
  );
  return parsed.ok ? { glossary: parsed.glossary } : glossarySocketError(parsed.problems);
}

/** set_name: `name`, 1-60 characters after trimming. */
export function parseSetName(data: Record<string, unknown>): string | AppError {
  const name = typeof data.name === 'string' ? data.name.trim() : null;
  if (!name) return invalid('name', 'name must be a non-empty string.');
  const problem = taskNameProblem(name);
  if (problem) return invalid('name', `name ${problem}.`);
  return name;
}

const SUMMARY_FIELDS = [
  'summary_mode',
  'summary_template',
  'summary_prompt',
  'summary_prompt_slug',
  'summary_language',
  'summary_plain_text',
] as const;

/**
 * set_summary: the start's summary fields (same rules as at start, `record` restrictions
 * included) replace what the recording will summarize at its end; `enabled: false` turns
 * the summary off.
 */
export function parseSetSummary(
  data: Record<string, unknown>,
  rawStart: Record<string, unknown>,
  engines: EngineQuery,
  templates: Pick<SummaryTemplateCatalogue, 'getEnabledTemplate' | 'list'>,
): { summary: StartRequest['summary'] } | AppError {
  if (data.enabled === false) return { summary: null };
  if (data.summary_template === undefined && data.summary_mode === undefined) {
    return invalid('summary_template', 'Send summary_template (builtin) or summary_mode "custom" with its prompt, or enabled: false.');
  }
  const merged: Record<string, unknown> = { ...rawStart };
  for (const f of SUMMARY_FIELDS) delete merged[f];
  for (const f of SUMMARY_FIELDS) if (data[f] !== undefined) merged[f] = data[f];
  const checked = validateStart(merged, engines);
  if (!checked.ok) return checked.error;
  const bad = unknownTemplate(checked.start, templates);
  return bad ?? { summary: checked.start.summary };
}

/** A builtin summary must name an enabled template (start and set_summary). */
export function unknownTemplate(
  start: StartRequest,
  templates: Pick<SummaryTemplateCatalogue, 'getEnabledTemplate' | 'list'>,
): AppError | null {
  const s = start.summary;
  if (s?.mode !== 'builtin' || s.template === null || templates.getEnabledTemplate(s.template)) return null;
  return invalid(
    'summary_template',
    `No enabled summary template "${s.template}".`,
    templates.list('all').map((t) => t.slug),
  );
}

/**
 * retranslate: `sid` (one final sentence) or `sids` (several), all finals so far when
 * neither; `target_languages` among the session's translation_languages (default: all).
 */
export function parseRetranslate(
  data: Record<string, unknown>,
  start: StartRequest,
  finals: readonly number[],
): { sids: number[] | null; targets: string[] } | AppError {
  if (start.type === 'record') {
    return new AppError('record_translation_not_allowed', { ...ws, details: { field: 'target_languages' } });
  }
  if (start.translationLanguages.length === 0) {
    return invalid('target_languages', 'This session has no translation_languages to retranslate into.', []);
  }
  let sids: number[] | null = null;
  const raw = data.sid !== undefined ? [data.sid] : data.sids;
  if (raw !== undefined) {
    if (!Array.isArray(raw) || raw.length === 0 || !raw.every((v) => Number.isInteger(v) && finals.includes(v as number))) {
      return invalid(data.sid !== undefined ? 'sid' : 'sids', 'sid must be the number of a final sentence of this recording.');
    }
    sids = raw as number[];
  }
  let targets = [...start.translationLanguages];
  if (data.target_languages !== undefined) {
    const list = Array.isArray(data.target_languages) ? data.target_languages : [data.target_languages];
    const tags = list.map((v) => (typeof v === 'string' ? normalizeLanguage(v) : null));
    if (tags.length === 0 || tags.some((t) => t === null || !start.translationLanguages.includes(t))) {
      return invalid('target_languages', 'target_languages must be among the session translation_languages.', start.translationLanguages);
    }
    targets = [...new Set(tags as string[])];
  }
  return { sids, targets };
}

/** switch_language: `language`, one of the start's transcription_languages, other than the current one. */
export function parseSwitchLanguage(data: Record<string, unknown>, start: StartRequest): string | AppError {
  const tag = typeof data.language === 'string' ? normalizeLanguage(data.language) : null;
  if (!tag || !start.transcriptionLanguages.includes(tag)) {
    return invalid('language', 'language must be one of the session transcription_languages.', start.transcriptionLanguages);
  }
  return tag;
}
