/**
 * Summaries over SSE (docs/summaries.md): regenerate a task's summary (GET preview, POST
 * persist), an ad-hoc summary of posted text, a translation of posted summary text, and the
 * retranslation of a task's stored summary.
 *
 * Every operation is split in two: `prepare*` does every check that needs no engine work
 * (ownership, transcript, template, text length, plan feature, credit) and throws an AppError
 * that the route answers as a JSON error before the stream opens; the returned `run` does the
 * work, reports text as it grows and resolves to the `done` payload, or throws an AppError the
 * route sends as an `error` event (no `done`).
 *
 * Billing: one-off usage rows (`regen_summary`, `summary`, `summary_translate`), charged only
 * once the text exists, so an engine failure charges nothing and leaves no row. Regeneration is
 * billed every time it reaches `done` (spec: "Both GET and POST are billed"); an ad-hoc text too
 * short to summarize is not charged. A persisting write that fails after the charge refunds it.
 * A plan-bound unlimited key needs the plan's `summary` one-off feature (charged 0 then).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { OneOffType } from '../billing/prices.js';
import type { BillingService, Standing } from '../billing/service.js';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Summarizer, SummaryResult, TextLanguageIdentifier, Translator } from '../engines/types.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import {
  inPlannedLanguage,
  isCreditError,
  planSummaryLanguage,
  type SummaryLanguagePlan,
  selectSummarizer,
} from '../processing/summarize.js';
import { translateLines } from '../processing/translate-text.js';
import { type SummaryTemplateCatalogue, toSummarySpec } from '../summary-templates/catalogue.js';
import type { TaskService } from '../tasks/service.js';
import type { SummaryRecord, TaskRecord, TaskStore } from '../tasks/store.js';
import { MAX_SUMMARY_INPUT_CHARS, ParameterError, type SummaryParams } from './params.js';

export interface SummariesDeps {
  engines: EngineRegistry;
  tasks: TaskService;
  store: TaskStore;
  billing: BillingService;
  templates: SummaryTemplateCatalogue;
  logger: Logger;
}

/** Text as it grows: the cumulative text so far (interim), then once the final text. */
export type TextSink = (text: string) => void;

export interface PreparedRun {
  run(sink: TextSink, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** Statuses whose transcript is still being written. */
const NOT_READY = new Set(['recording', 'importing', 'uploading', 'processing']);

/** Points as the spec's `charged` string: up to three decimals, at least one ("5.0", "0.125"). */
export function pointsString(points: number): string {
  const s = (Math.round(points * 1000) / 1000).toFixed(3).replace(/0{1,2}$/, '');
  return s;
}

const chars = (s: string) => [...s].length;

/** What one summary run needs, decided before the stream opens. */
interface SummaryJob {
  summarizer: Summarizer;
  plan: SummaryLanguagePlan;
  segments: string[];
  language: string;
  textLanguage: string;
  template: ReturnType<SummaryService['template']>;
  params: SummaryParams;
}

export class SummaryService {
  constructor(private readonly d: SummariesDeps) {}

  /** GET (persist false) and POST (persist true) /api/v1/sse/regenerate/summary/{taskId}. */
  async prepareRegenerate(principal: Principal, taskId: string, p: SummaryParams, persist: boolean): Promise<PreparedRun> {
    const task = await this.d.tasks.owned(principal, taskId);
    const template = this.template(p);
    const segments = await this.segments(task);
    const language = p.language ?? task.transcriptionLanguages?.[0] ?? 'en';
    const input = this.checkText(segments.join('\n'));
    const textLanguage = task.transcriptionLanguages?.[0] ?? 'en';
    const summarizer = selectSummarizer(this.d.engines, language, p.mode === 'custom', textLanguage);
    const plan = planSummaryLanguage(this.d.engines, summarizer, textLanguage, language);
    const price = await this.checkBilling(principal, 'regen_summary');
    const startRevision = (await this.d.store.getTranscript(task.taskId))?.revision ?? 0;
    const job: SummaryJob = { summarizer, plan, segments, language, textLanguage, template, params: p };
    return {
      run: async (sink, signal) => {
        const { result, record } = await this.summarizeJob(job, sink, signal);
        // A change that landed while the summary was written: refused before anything is charged.
        if (persist && ((await this.d.store.getTranscript(task.taskId))?.revision ?? 0) !== startRevision)
          throw new AppError('transcript_revision_conflict', { details: { task_id: task.taskId } });
        // "Both GET and POST are billed": every regeneration that reaches `done` is charged,
        // whichever summarizer wrote it, a transcript too short to condense included.
        const billing = await this.charge(principal, 'regen_summary', task.taskId, price, input);
        if (persist) await this.save(task.taskId, record, startRevision, billing.usageId);
        return {
          task_id: task.taskId,
          ...this.summaryFields(result, record),
          persisted: persist,
          ...billing.fields,
        };
      },
    };
  }

  /** POST /api/v1/sse/summary: a summary of the posted text (nothing stored). */
  async prepareAdHoc(principal: Principal, text: string, p: SummaryParams): Promise<PreparedRun> {
    const template = this.template(p);
    const input = this.checkText(text);
    const textLanguage = await this.guessLanguage(text);
    const language = p.language ?? textLanguage;
    const summarizer = selectSummarizer(this.d.engines, language, p.mode === 'custom', textLanguage);
    const plan = planSummaryLanguage(this.d.engines, summarizer, textLanguage, language);
    const price = await this.checkBilling(principal, 'summary');
    // Paragraphs are the segments (their indexes are what a level-3 fallback reports).
    const segments = text
      .split(/\n\s*\n|\r\n\s*\r\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    const job: SummaryJob = { summarizer, plan, segments, language, textLanguage, template, params: p };
    return {
      run: async (sink, signal) => {
        const { result, record } = await this.summarizeJob(job, sink, signal);
        const billing = result.tooShort ? null : await this.charge(principal, 'summary', null, price, input);
        return { task_id: null, ...this.summaryFields(result, record), persisted: false, ...(billing?.fields ?? {}) };
      },
    };
  }

  /**
   * Summarizes in the planned language: the summarizer's text streams to `sink` unless it is
   * about to be translated (then the translation streams), so a client never sees the
   * transcript's language first. Returns what is stored or reported.
   */
  private async summarizeJob(
    job: SummaryJob,
    sink: (text: string) => void,
    signal: AbortSignal,
  ): Promise<{ result: SummaryResult; record: SummaryRecord }> {
    const { summarizer, plan, params: p } = job;
    const result = await this.summarize(() =>
      summarizer.summarize({
        segments: job.segments,
        language: job.language,
        template: job.template,
        customPrompt: p.prompt ?? undefined,
        plainText: p.plainText,
        signal,
        onDelta: plan.translator ? undefined : sink,
      }),
    );
    const final = await inPlannedLanguage(plan, result.text, job.textLanguage, { signal, onText: sink, logger: this.d.logger });
    const record: SummaryRecord = {
      text: final.text,
      language: final.language,
      mode: p.mode,
      template: p.mode === 'builtin' ? p.template : p.promptSlug,
      plainText: p.plainText,
      promptSnapshot: p.prompt,
      fallbackLevel: result.fallbackLevel ?? null,
      droppedSegments: result.droppedSegments ?? null,
    };
    return { result, record };
  }

  /** POST /api/v1/sse/summary/translate: the posted summary text in `targetLang` (nothing stored). */
  async prepareTranslate(principal: Principal, text: string, targetLang: string, sourceLang: string | null): Promise<PreparedRun> {
    const input = this.checkText(text);
    const from = sourceLang ?? (await this.guessLanguage(text));
    const translator = this.translator(from, targetLang);
    const price = await this.checkBilling(principal, 'summary_translate');
    return {
      run: async (sink, signal) => {
        const out = await this.translateText(translator, text, from, targetLang, sink, signal);
        const billing = await this.charge(principal, 'summary_translate', null, price, input);
        return { source_language: from, target_language: targetLang, final_content: out, persisted: false, ...billing.fields };
      },
    };
  }

  /** GET /api/v1/sse/retranslate/summary/{taskId}?targetLang=: the stored summary translated and saved in its place. */
  async prepareRetranslate(principal: Principal, taskId: string, targetLang: string): Promise<PreparedRun> {
    const task = await this.d.tasks.owned(principal, taskId);
    if (task.type === 'record') throw new AppError('record_translation_not_allowed', { details: { task_id: task.taskId } });
    const transcript = await this.d.store.getTranscript(task.taskId);
    const summary = transcript?.summary;
    if (!summary?.text.trim())
      throw new AppError('sse_transcript_not_found', {
        message: 'The task has no summary to translate.',
        details: { task_id: task.taskId },
      });
    const from = summary.language ?? task.transcriptionLanguages?.[0] ?? 'en';
    if (from === targetLang) throw new ParameterError(`The summary is already in ${targetLang}.`);
    const input = this.checkText(summary.text);
    const translator = this.translator(from, targetLang);
    const price = await this.checkBilling(principal, 'summary_translate');
    const startRevision = transcript?.revision ?? 0;
    return {
      run: async (sink, signal) => {
        const out = await this.translateText(translator, summary.text, from, targetLang, sink, signal);
        if (((await this.d.store.getTranscript(task.taskId))?.revision ?? 0) !== startRevision)
          throw new AppError('transcript_revision_conflict', { details: { task_id: task.taskId } });
        const billing = await this.charge(principal, 'summary_translate', task.taskId, price, input);
        await this.save(task.taskId, { ...summary, text: out, language: targetLang }, startRevision, billing.usageId);
        return {
          task_id: task.taskId,
          source_language: from,
          target_language: targetLang,
          final_content: out,
          persisted: true,
          ...billing.fields,
        };
      },
    };
  }

  // --- checks before the stream opens -------------------------------------------------------

  private template(p: SummaryParams) {
    if (p.mode !== 'builtin' || !p.template) return undefined;
    const t = this.d.templates.getEnabledTemplate(p.template);
    if (!t) throw new AppError('sse_template_not_found', { details: { template: p.template } });
    return toSummarySpec(t);
  }

  private async segments(task: TaskRecord): Promise<string[]> {
    if (NOT_READY.has(task.processingStatus))
      throw new AppError('sse_transcript_not_found', {
        message: 'The transcript is not ready yet.',
        details: { task_id: task.taskId, processing_status: task.processingStatus },
      });
    const out: string[] = [];
    for await (const page of this.d.store.allSentences(task.taskId)) out.push(...page.map((s) => s.origin));
    // A completed task without a sentence has a transcript with no text in it (a recording
    // where nothing was recognized): summary_text_empty. A failed one never got a transcript.
    if (!out.length && task.processingStatus === 'failed')
      throw new AppError('sse_transcript_not_found', { details: { task_id: task.taskId, processing_status: 'failed' } });
    return out;
  }

  /** summary_text_empty / summary_text_too_long; the characters read (what `characters_billed` reports). */
  private checkText(text: string): number {
    if (!text.trim()) throw new AppError('summary_text_empty');
    const n = chars(text);
    if (n > MAX_SUMMARY_INPUT_CHARS)
      throw new AppError('summary_text_too_long', { details: { max_characters: MAX_SUMMARY_INPUT_CHARS, characters: n } });
    return n;
  }

  /** Plan feature, a positive balance, and enough credit for the price (nothing charged yet). */
  private async checkBilling(principal: Principal, type: OneOffType): Promise<number> {
    const standing: Standing = await this.d.billing.standing(principal);
    PlanService.assertFeature(standing.plan, 'summary');
    await this.d.billing.assertCanCharge(principal, standing);
    const price = this.d.billing.prices.oneOff(type);
    try {
      await this.d.billing.assertCanAfford(principal, price, standing);
    } catch (err) {
      if (err instanceof AppError && isCreditError(err))
        throw new AppError('summary_insufficient_credit', { details: err.details ?? undefined });
      throw err;
    }
    return price;
  }

  private translator(from: string, to: string): Translator {
    const selected = this.d.engines.select({ kind: 'translator', from, to });
    if (!selected.ok)
      throw new AppError('translation_language_unsupported', {
        message: `No translation engine here translates ${from} to ${to}.`,
        details: { source_lang: from, translation_language: to },
      });
    return selected.engine;
  }

  /** The text's language from the text-language identifier when there is one; English otherwise. */
  private async guessLanguage(text: string): Promise<string> {
    const selected = this.d.engines.select({ kind: 'language-id' });
    if (!selected.ok) return 'en';
    const best = await (selected.engine as TextLanguageIdentifier).identify(text.slice(0, 2000)).catch(() => []);
    return best[0]?.language ?? 'en';
  }

  // --- the work ------------------------------------------------------------------------------

  /**
   * Runs the summarizer; its failures become the error event: the remote tier's llm_* codes as
   * they are (llm_content_filtered once every fallback was refused), anything else, or a model
   * that wrote nothing, sse_summary_regeneration_failed. Nothing is charged or saved.
   */
  private async summarize(work: () => Promise<SummaryResult>): Promise<SummaryResult> {
    let result: SummaryResult;
    try {
      result = await work();
    } catch (err) {
      if (err instanceof EngineError && err.code.startsWith('llm_'))
        throw new AppError(err.code, { details: { retryable: err.retryable, engine: err.engineId ?? null } });
      if (err instanceof EngineError && err.code === 'summary_text_empty') throw new AppError('summary_text_empty');
      this.d.logger.warn({ err }, 'summary failed');
      throw new AppError('sse_summary_regeneration_failed', { cause: err });
    }
    if (!result.text.trim()) throw new AppError('sse_summary_regeneration_failed', { message: 'The summarizer produced no text.' });
    return result;
  }

  /** The text translated line by line (Markdown kept); engine failures become the error event. */
  private async translateText(
    translator: Translator,
    text: string,
    from: string,
    to: string,
    sink: TextSink,
    signal: AbortSignal,
  ): Promise<string> {
    try {
      return await translateLines(translator, text, from, to, { signal, onText: sink });
    } catch (err) {
      if (signal.aborted) throw err;
      this.d.logger.warn({ err, from, to }, 'summary translation failed');
      if (err instanceof EngineError && err.code.startsWith('llm_'))
        throw new AppError(err.code, { details: { retryable: err.retryable } });
      throw new AppError('translation_failed', { details: { source_lang: from, translation_language: to } });
    }
  }

  private async charge(principal: Principal, type: OneOffType, taskId: string | null, price: number, characters: number) {
    let charged: number;
    let usageId: string;
    try {
      const r = await this.d.billing.chargeOneOff(principal, { type, taskId, points: price, idempotencyKey: randomUUID() });
      charged = r.charged;
      usageId = r.usage.id;
    } catch (err) {
      if (isCreditError(err)) throw new AppError('summary_insufficient_credit', { details: (err as AppError).details ?? undefined });
      throw err;
    }
    return { usageId, fields: { characters_billed: characters, charged: pointsString(charged), billed: true } };
  }

  /** POST's write: revision-checked; a failure refunds the charge (storage_upload_failed / transcript_revision_conflict). */
  private async save(taskId: string, record: SummaryRecord, revision: number, usageId: string | null): Promise<void> {
    let saved: number | null;
    try {
      saved = await this.d.store.setSummaryAt(taskId, record, revision);
    } catch (err) {
      this.d.logger.error({ err, task_id: taskId }, 'summary not saved');
      await this.refund(usageId);
      throw new AppError('storage_upload_failed', { details: { task_id: taskId } });
    }
    if (saved === null) {
      await this.refund(usageId);
      throw new AppError('transcript_revision_conflict', { details: { task_id: taskId } });
    }
  }

  private async refund(usageId: string | null): Promise<void> {
    if (!usageId) return;
    await this.d.billing
      .refund(usageId, 'failed')
      .catch((err: unknown) => this.d.logger.error({ err, usage_id: usageId }, 'refund failed'));
  }

  private summaryFields(result: SummaryResult, r: SummaryRecord): Record<string, unknown> {
    return {
      tokens_used: { input: result.usage.input, output: result.usage.output },
      final_content: r.text,
      mode: r.mode,
      template: r.template,
      plain_text: r.plainText,
      summary_language: r.language,
      ...(r.mode === 'custom' ? { prompt_snapshot: r.promptSnapshot } : {}),
      ...(result.truncated ? { truncated: true } : {}),
      ...(result.fallbackLevel ? { fallback_level: result.fallbackLevel, dropped_segments: result.droppedSegments ?? [] } : {}),
      ...(result.tooShort ? { too_short: true } : {}),
    };
  }
}
