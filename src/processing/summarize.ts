/**
 * The summary of a finished transcript: looks up the template, checks the credit covers the
 * summary, runs the summarizer engine (the same one and the same content-filter fallback
 * chain as the SSE endpoints, `selectSummarizer`), charges the summary price (idempotent, so
 * a resumed job is never charged twice) and writes the transcript's summary fields. Shared
 * by imports, live finalization and `set_summary`. Failures the user should hear about come
 * back as an outcome (`summary_insufficient_credit`, `llm_content_filtered`, ...); nothing is
 * charged when no summary was produced, nor for a transcript too short to summarize.
 */
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import { EngineError } from '../engines/errors.js';
import { refusalError } from '../engines/refusal.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Summarizer, TokenUsage, Translator } from '../engines/types.js';
import { baseLanguage, chineseScript, isChinese, languageServes } from '../languages.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';
import { type SummaryTemplateCatalogue, toSummarySpec } from '../summary-templates/catalogue.js';
import type { SentenceRecord, TaskStore } from '../tasks/store.js';
import { translateLines } from './translate-text.js';

export interface SummarizeTaskDeps {
  engines: EngineRegistry;
  tasks: TaskStore;
  billing: BillingService;
  templates: SummaryTemplateCatalogue;
  logger: Logger;
}

export interface SummaryRequest {
  mode: 'builtin' | 'custom';
  /** builtin: an enabled template slug; custom: the caller's prompt slug (passed through). */
  template: string | null;
  /** custom mode: the caller's prompt. */
  prompt?: string | null;
  /** Output language; default: the task's first transcription language. */
  language?: string | null;
  plainText?: boolean;
}

export type SummaryOutcome =
  | {
      ok: true;
      summaryId: string;
      revision: number;
      mode: 'builtin' | 'custom';
      template: string | null;
      language: string;
      plainText: boolean;
      text: string;
      tokens: TokenUsage;
    }
  | { ok: false; code: ErrorCode; message: string; retryable: boolean };

export interface SummarizeTaskOptions {
  /** Unique per summary produced (e.g. `summary:import:<id>`): a rerun charges once. */
  idempotencyKey: string;
  signal?: AbortSignal;
  onDelta?: (cumulativeText: string) => void;
}

/**
 * The summarizer for a request, best first. A custom prompt needs one that follows
 * instructions (an LLM): without one it is refused (llm_init_failed, details.missing
 * `instructions`) rather than silently summarized without the prompt. When no such engine
 * writes the asked language but one writes the transcript's (`textLanguage`; a small local
 * model that knows English only), that one is taken and `planSummaryLanguage` translates.
 */
export function selectSummarizer(engines: EngineRegistry, language: string, custom: boolean, textLanguage?: string): Summarizer {
  const selected = engines.select({ kind: 'summarizer', language, instructions: custom });
  if (selected.ok) return selected.engine;
  if (textLanguage && textLanguage !== language && selected.refusal.missing.includes('language')) {
    const inText = engines.select({ kind: 'summarizer', language: textLanguage, instructions: custom });
    if (inText.ok) return inText.engine;
  }
  const message = selected.refusal.missing.includes('instructions')
    ? 'Custom summary prompts need a language model (PARLEY_REMOTE_LLM_URL or a local model); this server has only the built-in extractive summarizer. Use mode "builtin" with a template.'
    : `Summaries are not available: ${selected.refusal.message}.`;
  throw refusalError('llm_init_failed', selected.refusal, { message });
}

export interface SummaryLanguagePlan {
  /** The language the summary will be in (what is recorded and reported). */
  language: string;
  /** Set when the summarizer's text must be translated into `language` afterwards. */
  translator: Translator | null;
}

/**
 * The language a summary will really be in. An LLM writes the asked language itself when it
 * serves it. The built-in tier (no `instructions`), and an LLM that does not serve the asked
 * language, write in the transcript's language: when another language
 * was asked, its text is translated line by line by a translator serving the pair; without one
 * the summary stays in the transcript's language, and that is the language recorded.
 */
export function planSummaryLanguage(
  engines: EngineRegistry,
  summarizer: Summarizer,
  textLanguage: string,
  asked: string,
): SummaryLanguagePlan {
  const same =
    baseLanguage(textLanguage) === baseLanguage(asked) && (!isChinese(asked) || chineseScript(asked) === chineseScript(textLanguage));
  const writesAsked =
    summarizer.capabilities.instructions !== false && summarizer.capabilities.languages.some((l) => languageServes(l, asked));
  if (writesAsked || same) return { language: asked, translator: null };
  const t = engines.select({ kind: 'translator', from: textLanguage, to: asked });
  return t.ok ? { language: asked, translator: t.engine } : { language: textLanguage, translator: null };
}

/**
 * The summarizer's text in the planned language. A translation that fails leaves the text in
 * the transcript's language (and says so) rather than losing the summary.
 */
export async function inPlannedLanguage(
  plan: SummaryLanguagePlan,
  text: string,
  textLanguage: string,
  o: { signal?: AbortSignal; onText?: (cumulative: string) => void; logger?: Logger } = {},
): Promise<{ text: string; language: string }> {
  if (!plan.translator) return { text, language: plan.language };
  try {
    return { text: await translateLines(plan.translator, text, textLanguage, plan.language, o), language: plan.language };
  } catch (err) {
    if (o.signal?.aborted) throw err;
    o.logger?.warn({ err, from: textLanguage, to: plan.language }, 'summary not translated; kept in the transcript language');
    o.onText?.(text);
    return { text, language: textLanguage };
  }
}

export async function summarizeTask(
  deps: SummarizeTaskDeps,
  principal: Principal,
  taskId: string,
  req: SummaryRequest,
  o: SummarizeTaskOptions,
): Promise<SummaryOutcome> {
  const task = await deps.tasks.getTask(taskId);
  if (!task) return failure('not_found', 'The task no longer exists.');
  const language = req.language ?? task.transcriptionLanguages?.[0] ?? 'en';
  const template = req.mode === 'builtin' && req.template ? deps.templates.getEnabledTemplate(req.template) : null;
  if (req.mode === 'builtin' && req.template && !template)
    return failure('template_not_found', `Template "${req.template}" is not available.`);
  let summarizer: Summarizer;
  try {
    summarizer = selectSummarizer(deps.engines, language, req.mode === 'custom', task.transcriptionLanguages?.[0] ?? 'en');
  } catch (err) {
    if (err instanceof AppError) {
      // No engine at all may come back after a restart; a custom prompt without an LLM will not.
      const missing = (err.details?.missing ?? []) as string[];
      return failure(err.code, err.message, !missing.includes('instructions'));
    }
    throw err;
  }

  const segments: string[] = [];
  for await (const page of deps.tasks.allSentences(taskId)) segments.push(...page.map((s: SentenceRecord) => s.origin));

  const price = deps.billing.prices.oneOff('summary');
  const short = () => failure('summary_insufficient_credit', 'The credit cannot cover the summary.');
  try {
    await deps.billing.assertCanAfford(principal, price);
  } catch (err) {
    if (isCreditError(err)) return short();
    throw err;
  }

  const plainText = req.plainText ?? false;
  const textLanguage = task.transcriptionLanguages?.[0] ?? 'en';
  const plan = planSummaryLanguage(deps.engines, summarizer, textLanguage, language);
  let result: Awaited<ReturnType<Summarizer['summarize']>>;
  try {
    result = await summarizer.summarize({
      segments,
      language,
      template: template ? toSummarySpec(template) : undefined,
      customPrompt: req.mode === 'custom' ? (req.prompt ?? undefined) : undefined,
      plainText,
      signal: o.signal,
      // Text about to be translated is not shown in the transcript's language first.
      onDelta: plan.translator ? undefined : o.onDelta,
    });
  } catch (err) {
    if (err instanceof EngineError) {
      deps.logger.warn({ err: err.message, code: err.code, task_id: taskId }, 'summary failed');
      return failure(
        err.code,
        err.code === 'llm_content_filtered' ? 'The content filter refused the summary.' : 'The summary could not be produced.',
        err.retryable,
      );
    }
    throw err;
  }
  const final = await inPlannedLanguage(plan, result.text, textLanguage, { signal: o.signal, onText: o.onDelta, logger: deps.logger });
  // Charged once the summary exists (idempotent per summary); a text too short to summarize is not charged.
  if (!result.tooShort) {
    try {
      await deps.billing.chargeOneOff(principal, { type: 'summary', taskId, points: price, idempotencyKey: o.idempotencyKey });
    } catch (err) {
      if (isCreditError(err)) return short();
      throw err;
    }
  }
  const effectiveTemplate = req.mode === 'builtin' ? (template?.slug ?? null) : (req.template ?? null);
  const revision = await deps.tasks.setSummary(taskId, {
    text: final.text,
    language: final.language,
    mode: req.mode,
    template: effectiveTemplate,
    plainText,
    promptSnapshot: req.mode === 'custom' ? (req.prompt ?? null) : null,
    fallbackLevel: result.fallbackLevel ?? null,
    droppedSegments: result.droppedSegments ?? null,
  });
  return {
    ok: true,
    summaryId: `${taskId}:${revision}`,
    revision,
    mode: req.mode,
    template: effectiveTemplate,
    language: final.language,
    plainText,
    text: final.text,
    tokens: result.usage,
  };
}

export function isCreditError(err: unknown): boolean {
  return err instanceof AppError && (err.code === 'auth_quota_exceeded' || err.code === 'auth_insufficient_credit');
}

function failure(code: ErrorCode, message: string, retryable = false): SummaryOutcome {
  return { ok: false, code, message, retryable };
}
