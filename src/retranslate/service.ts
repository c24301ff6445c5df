/**
 * Retranslation of a finished transcript (issue 18): every sentence of a task, or one
 * sentence, into a target language, saved into the transcript and billed as `retranslate`.
 *
 * `prepare` does every check and the charge before anything is streamed, so each refusal is
 * an ordinary JSON error with the spec's status: recording_not_found, record_translation_not_allowed,
 * invalid_processing_status, validation_failed (targetLang, sid), translation_language_unsupported,
 * sse_transcript_not_found / sse_sentence_not_found, plan_feature_not_allowed (full text on a
 * plan without the one-off feature), auth_insufficient_credit, auth_quota_exceeded. `run`
 * translates sentence by sentence, reports each one as it is done, saves them (a failed
 * sentence gets its `translation_errors` entry) and refunds the charge when no sentence could
 * be translated. Decisions: docs/language-services.md.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import { refusalError } from '../engines/refusal.js';
import type { EngineRegistry } from '../engines/registry.js';
import { normalizeLanguage } from '../languages.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { translateOne } from '../processing/translate.js';
import type { TaskService } from '../tasks/service.js';
import type { SentenceRecord, TaskRecord, TranslationInput } from '../tasks/store.js';

/** The plan's one-off feature that covers full-text retranslation (spec "My plan"). */
export const RETRANSLATE_FEATURE = 'retranslate';
/** Statuses whose transcript is final: a task still recording or processing writes its own translations. */
const RETRANSLATABLE = new Set(['completed', 'failed']);

export interface RetranslateDeps {
  tasks: TaskService;
  engines: EngineRegistry;
  billing: BillingService;
  logger: Logger;
}

export interface RetranslateJob {
  task: TaskRecord;
  target: string;
  sentences: SentenceRecord[];
  /** Usage row of the charge taken in `prepare` (refunded when nothing could be translated). */
  usageId: string;
  charged: number;
}

export interface RetranslateProgress {
  translated(sid: number, text: string): void | Promise<void>;
  failed(sid: number, code: string): void | Promise<void>;
}

/** `targetLang` as the endpoints take it: a required language code. */
export function parseTargetLanguage(raw: unknown): string {
  const tag = typeof raw === 'string' && raw.length <= 35 ? normalizeLanguage(raw) : null;
  if (tag) return tag;
  throw new AppError('validation_failed', {
    message: raw === undefined || raw === '' ? 'targetLang is required.' : 'targetLang must be a language code such as es or zh-TW.',
    details: { field: 'targetLang', location: 'querystring' },
  });
}

/** A sentence id from the path: a positive integer (ids count from 1). */
export function parseSid(raw: string): number {
  const sid = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(sid) && sid >= 1) return sid;
  throw new AppError('validation_failed', {
    message: 'sid must be a sentence id (an integer from 1).',
    details: { field: 'sid', location: 'params' },
  });
}

/**
 * The charge of a retranslation (usage type `retranslate`), shared by the SSE endpoints and
 * the WebSocket `retranslate` action: the whole transcript (`sentences` 'all') costs the
 * full-text price per language and, on a plan-bound unlimited plan, needs the plan's one-off
 * feature (403 plan_feature_not_allowed); some sentences cost the per-sentence price, capped
 * at the full-text one. 402 auth_insufficient_credit at a zero balance, auth_quota_exceeded
 * when a budget cannot cover it; 0 points under an unlimited authorization.
 */
export async function chargeRetranslation(
  billing: BillingService,
  principal: Principal,
  o: { taskId: string; sentences: number | 'all'; languages: number },
): Promise<{ usageId: string; charged: number }> {
  const standing = await billing.standing(principal);
  if (o.sentences === 'all') PlanService.assertFeature(standing.plan, RETRANSLATE_FEATURE);
  await billing.assertCanCharge(principal, standing);
  const points =
    o.sentences === 'all'
      ? billing.prices.oneOff('retranslate', o.languages)
      : billing.prices.retranslateSentences(o.sentences, o.languages);
  const charge = await billing.chargeOneOff(principal, {
    type: 'retranslate',
    taskId: o.taskId,
    points,
    idempotencyKey: `retranslate:${o.taskId}:${randomUUID()}`,
  });
  return { usageId: charge.usage.id, charged: charge.charged };
}

export class RetranslateService {
  constructor(private readonly deps: RetranslateDeps) {}

  /** Checks the request and takes the charge; `sid` null means the whole transcript. */
  async prepare(principal: Principal, taskId: string, targetLang: unknown, sid: number | null): Promise<RetranslateJob> {
    const task = await this.deps.tasks.owned(principal, taskId);
    if (task.type === 'record') throw new AppError('record_translation_not_allowed', { details: { field: 'targetLang' } });
    if (!RETRANSLATABLE.has(task.processingStatus)) {
      throw new AppError('invalid_processing_status', {
        message: 'The transcript can be retranslated once the recording is completed (or failed).',
        details: { processing_status: task.processingStatus },
      });
    }
    const target = parseTargetLanguage(targetLang);
    const store = this.deps.tasks.store;
    let sentences: SentenceRecord[];
    if (sid === null) {
      sentences = [];
      for await (const page of store.allSentences(task.taskId)) sentences.push(...page);
      if (sentences.length === 0) throw new AppError('sse_transcript_not_found', { details: { task_id: task.taskId } });
    } else {
      const one = await store.getSentence(task.taskId, sid);
      if (!one) throw new AppError('sse_sentence_not_found', { details: { task_id: task.taskId, sid } });
      sentences = [one];
    }
    const source = task.transcriptionLanguages?.[0] ?? 'en';
    for (const from of new Set(sentences.map((s) => s.language ?? source))) {
      const selected = this.deps.engines.select({ kind: 'translator', from, to: target });
      if (!selected.ok) {
        throw refusalError('translation_language_unsupported', selected.refusal, {
          details: { source_lang: from, translation_language: target },
        });
      }
    }

    const charge = await chargeRetranslation(this.deps.billing, principal, {
      taskId: task.taskId,
      sentences: sid === null ? 'all' : 1,
      languages: 1,
    });
    return { task, target, sentences, ...charge };
  }

  /**
   * Translates and saves, reporting every sentence as it is done; returns the counts.
   * Throws `translation_failed` (after the refund) when no sentence could be translated.
   */
  async run(job: RetranslateJob, progress: RetranslateProgress): Promise<{ updated: number; failed: number }> {
    const { task, target } = job;
    const source = task.transcriptionLanguages?.[0] ?? 'en';
    const entries: TranslationInput[] = [];
    let updated = 0;
    let failed = 0;
    const store = this.deps.tasks.store;
    try {
      for (const s of job.sentences) {
        const r = await translateOne(this.deps, s, s.language ?? source, target, null);
        if (r.error) {
          failed++;
          entries.push({ sid: s.sid, error: r.error });
          await progress.failed(s.sid, r.error);
        } else {
          updated++;
          entries.push({ sid: s.sid, text: r.text ?? '' });
          await progress.translated(s.sid, r.text ?? '');
        }
      }
      // Saved even when the client went away: the charge covers the work done.
      await store.setTranslations(task.taskId, target, entries);
      if (updated > 0) await store.addTranslationLanguage(task.taskId, target);
    } catch (err) {
      await this.refund(job, err);
      throw err;
    }
    if (updated === 0) {
      await this.refund(job, null);
      throw new AppError('translation_failed', {
        message: 'No sentence could be translated; nothing was charged.',
        details: { translation_language: target, failed },
      });
    }
    return { updated, failed };
  }

  private async refund(job: RetranslateJob, cause: unknown): Promise<void> {
    if (cause) this.deps.logger.warn({ err: cause, task_id: job.task.taskId }, 'retranslation failed');
    await this.deps.billing
      .refund(job.usageId, 'failed')
      .catch((e: unknown) => this.deps.logger.error({ err: e, usage_id: job.usageId }, 'retranslation refund failed'));
  }
}
