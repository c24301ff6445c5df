/**
 * The summary template catalogue: built-in templates plus the operator's file, validated
 * once at start (a bad file stops the start with every problem listed). Imports and live
 * sessions look templates up with `getEnabledTemplate`.
 */
import { readFileSync } from 'node:fs';
import type { SummaryTemplateSpec } from '../engines/types.js';
import { BUILTIN_TEMPLATES } from './builtin.js';
import { CATEGORIES, type SummaryTemplate, type TemplateCategory } from './types.js';

export class TemplateFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`Invalid summary templates file ${file}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TemplateFileError';
  }
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const LIMITS = { name: 200, description: 1000, system_prompt: 20_000, template_prompt: 20_000, output_format: 5_000 } as const;

/** Checks one operator entry; pushes a sentence per problem. */
function validate(raw: unknown, at: string, problems: string[]): SummaryTemplate | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${at}: must be an object`);
    return null;
  }
  const o = raw as Record<string, unknown>;
  const before = problems.length;
  const known = new Set(['slug', 'name', 'description', 'category', 'system_prompt', 'template_prompt', 'output_format', 'enabled']);
  for (const k of Object.keys(o)) if (!known.has(k)) problems.push(`${at}: unknown field "${k}"`);
  if (typeof o.slug !== 'string' || !SLUG.test(o.slug)) problems.push(`${at}: slug must be 1-64 characters a-z, 0-9 and "-"`);
  if (typeof o.category !== 'string' || !(CATEGORIES as readonly string[]).includes(o.category)) {
    problems.push(`${at}: category must be one of ${CATEGORIES.join(', ')}`);
  }
  for (const f of ['name', 'system_prompt', 'template_prompt', 'output_format'] as const) {
    const v = o[f];
    if (typeof v !== 'string' || v.trim() === '') problems.push(`${at}: ${f} must be a non-empty string`);
    else if (v.length > LIMITS[f]) problems.push(`${at}: ${f} is longer than ${LIMITS[f]} characters`);
  }
  if (o.description !== undefined && o.description !== null && typeof o.description !== 'string') {
    problems.push(`${at}: description must be a string or null`);
  } else if (typeof o.description === 'string' && o.description.length > LIMITS.description) {
    problems.push(`${at}: description is longer than ${LIMITS.description} characters`);
  }
  if (o.enabled !== undefined && typeof o.enabled !== 'boolean') problems.push(`${at}: enabled must be true or false`);
  if (problems.length > before) return null;
  return {
    slug: o.slug as string,
    name: (o.name as string).trim(),
    description: (o.description as string | null | undefined) ?? null,
    category: o.category as TemplateCategory,
    system_prompt: o.system_prompt as string,
    template_prompt: o.template_prompt as string,
    output_format: o.output_format as string,
    enabled: o.enabled !== false,
  };
}

/** Reads and validates the operator file; throws TemplateFileError listing every problem. */
export function readTemplateFile(file: string): SummaryTemplate[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new TemplateFileError(file, [`cannot read JSON: ${(err as Error).message}`]);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { templates?: unknown })?.templates;
  if (!Array.isArray(list)) throw new TemplateFileError(file, ['must be a JSON array of templates (or {"templates": [...]})']);
  const problems: string[] = [];
  const seen = new Set<string>();
  const out: SummaryTemplate[] = [];
  list.forEach((raw, i) => {
    const t = validate(raw, `templates[${i}]`, problems);
    if (!t) return;
    if (seen.has(t.slug)) problems.push(`templates[${i}]: slug "${t.slug}" appears twice`);
    seen.add(t.slug);
    out.push(t);
  });
  if (problems.length) throw new TemplateFileError(file, problems);
  return out;
}

export class SummaryTemplateCatalogue {
  private readonly bySlug = new Map<string, SummaryTemplate>();

  constructor(operator: readonly SummaryTemplate[] = []) {
    for (const t of BUILTIN_TEMPLATES) this.bySlug.set(t.slug, t);
    // Operator entries replace a built-in of the same slug (or disable it with enabled:false).
    for (const t of operator) this.bySlug.set(t.slug, t);
  }

  static fromSettings(s: { file: string | undefined }): SummaryTemplateCatalogue {
    return new SummaryTemplateCatalogue(s.file ? readTemplateFile(s.file) : []);
  }

  /** Enabled templates of a category (or all), in catalogue order. */
  list(category: TemplateCategory | 'all'): SummaryTemplate[] {
    return [...this.bySlug.values()].filter((t) => t.enabled && (category === 'all' || t.category === category));
  }

  /** The template, or null when it is missing or disabled. */
  getEnabledTemplate(slug: string): SummaryTemplate | null {
    const t = this.bySlug.get(slug);
    return t?.enabled ? t : null;
  }
}

/** The summarizer's view of a template. */
export function toSummarySpec(t: SummaryTemplate): SummaryTemplateSpec {
  return { slug: t.slug, systemPrompt: t.system_prompt, templatePrompt: t.template_prompt, outputFormat: t.output_format };
}
