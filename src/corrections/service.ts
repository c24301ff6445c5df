/**
 * Corrections of a stored transcript (REST): the owner replaces a final sentence's text. The
 * sentence is retranslated into every language it has (or its task lists), billed as a
 * one-sentence retranslation (usage type `retranslate`, src/retranslate: the per-sentence
 * price per language, refunded when no language could be translated), stored as the
 * sentence's next revision, and written into the sentence row, so history, exports and the
 * search index (its triggers) show the corrected text at once. An undo restores the text and
 * translations the latest change replaced; it translates nothing and costs nothing.
 *
 * A task still recording is corrected through its live session (the WebSocket action
 * `correct_sentence`, src/realtime/correction-actions.ts): its sentences are not stored yet.
 */
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { chargeRetranslation } from '../retranslate/service.js';
import type { WireSentenceCorrected } from '../stream/events.js';
import { wireCorrected } from '../stream/wire.js';
import type { TaskService } from '../tasks/service.js';
import type { SentenceRecord, TaskRecord } from '../tasks/store.js';
import { assertRevision, correctedEvent, parseCorrection, parseRevision, type SentenceVersion } from './rules.js';
import type { CorrectionStore, RevisionRecord } from './store.js';
import { targetLanguages, translateCorrection } from './translate.js';

/** A transcript is corrected once it is stored: a task still recording or processing writes its own sentences. */
const CORRECTABLE = new Set(['completed', 'failed']);

export interface CorrectionDeps {
  tasks: TaskService;
  store: CorrectionStore;
  engines: EngineRegistry;
  billing: BillingService;
  logger: Logger;
}

/** The REST answer: the event as clients read it (mm:ss start_time), plus the charge. */
export interface CorrectionResult extends WireSentenceCorrected {
  /** Points charged for the retranslation (0 for an undo, or a sentence without translations). */
  charged: number;
}

const versionOf = (s: SentenceRecord): SentenceVersion => ({
  origin: s.origin,
  translations: s.translations,
  translationErrors: s.translationErrors,
});

export class CorrectionService {
  constructor(private readonly deps: CorrectionDeps) {}

  private async sentence(principal: Principal, taskId: string, sid: number): Promise<{ task: TaskRecord; sentence: SentenceRecord }> {
    const task = await this.deps.tasks.owned(principal, taskId);
    if (!CORRECTABLE.has(task.processingStatus)) {
      throw new AppError('invalid_processing_status', {
        message:
          task.processingStatus === 'recording'
            ? 'A live recording is corrected through its WebSocket session (correct_sentence).'
            : 'The transcript can be corrected once the task is completed (or failed).',
        details: { processing_status: task.processingStatus },
      });
    }
    const sentence = await this.deps.tasks.store.getSentence(task.taskId, sid);
    if (!sentence) throw new AppError('sentence_not_found', { details: { task_id: task.taskId, sid } });
    return { task, sentence };
  }

  /** PATCH .../sentences/{sid}: the new text, retranslated, as the next revision. */
  async correct(principal: Principal, taskId: string, sid: number, body: Record<string, unknown>): Promise<CorrectionResult> {
    const input = parseCorrection(body);
    const { task, sentence } = await this.sentence(principal, taskId, sid);
    const latest = await this.deps.store.latest(task.taskId, sid);
    const current = latest?.revision ?? 0;
    assertRevision(input.revision, current);
    const before = versionOf(sentence);
    // The same text again changes nothing and costs nothing.
    if (input.text === sentence.origin)
      return { ...wireCorrected(correctedEvent(task.taskId, sentence, current, 'correction', before.origin, before)), charged: 0 };

    const targets =
      task.type === 'record' ? [] : targetLanguages(task.translationLanguages, sentence.translations, sentence.translationErrors);
    const charge = targets.length
      ? await chargeRetranslation(this.deps.billing, principal, { taskId: task.taskId, sentences: 1, languages: targets.length })
      : null;
    try {
      const language = sentence.language ?? task.transcriptionLanguages?.[0] ?? 'en';
      const t = await translateCorrection(this.deps, { sid, text: input.text, language }, targets);
      const version: SentenceVersion = { origin: input.text, translations: t.translations, translationErrors: t.errors };
      const revision = await this.deps.store.write(task.taskId, sid, {
        current,
        recognized: before,
        kind: 'correction',
        basedOn: current,
        version,
        updateSentence: true,
      });
      if (revision === null) throw new AppError('sentence_revision_conflict', { details: { revision: current + 1 } });
      // Nothing could be translated: the text is corrected, the retranslation is not billed.
      if (charge && Object.keys(t.translations).length === 0) await this.refund(charge.usageId);
      const charged = charge && Object.keys(t.translations).length > 0 ? charge.charged : 0;
      return { ...wireCorrected(correctedEvent(task.taskId, sentence, revision, 'correction', before.origin, version)), charged };
    } catch (err) {
      if (charge) await this.refund(charge.usageId);
      throw err;
    }
  }

  /** POST .../sentences/{sid}/undo: the text and translations the latest change replaced. */
  async undo(principal: Principal, taskId: string, sid: number, body: Record<string, unknown>): Promise<CorrectionResult> {
    const expected = parseRevision(body);
    const { task, sentence } = await this.sentence(principal, taskId, sid);
    const history = await this.deps.store.history(task.taskId, sid);
    const plan = planUndo(history, expected);
    const revision = await this.deps.store.write(task.taskId, sid, { ...plan, recognized: versionOf(sentence), updateSentence: true });
    if (revision === null) throw new AppError('sentence_revision_conflict', { details: { revision: plan.current + 1 } });
    return { ...wireCorrected(correctedEvent(task.taskId, sentence, revision, 'undo', sentence.origin, plan.version)), charged: 0 };
  }

  /** GET .../sentences/{sid}/revisions: the sentence's history, oldest first. */
  async revisions(principal: Principal, taskId: string, sid: number) {
    const task = await this.deps.tasks.owned(principal, taskId);
    const sentence = await this.deps.tasks.store.getSentence(task.taskId, sid);
    if (!sentence) throw new AppError('sentence_not_found', { details: { task_id: task.taskId, sid } });
    const history = await this.deps.store.history(task.taskId, sid);
    return {
      task_id: task.taskId,
      sid,
      revision: history.at(-1)?.revision ?? 0,
      text: sentence.origin,
      revisions: history.map((r) => ({
        revision: r.revision,
        kind: r.kind,
        based_on: r.basedOn,
        text: r.origin,
        translations: r.translations ?? {},
        created_at: r.createdAt,
      })),
    };
  }

  private async refund(usageId: string): Promise<void> {
    await this.deps.billing
      .refund(usageId, 'failed')
      .catch((e: unknown) => this.deps.logger.error({ err: e, usage_id: usageId }, 'correction refund failed'));
  }
}

/**
 * What an undo writes: the version the latest revision was based on, as the next revision
 * (based on that version's own base, so the next undo goes one step further back).
 */
export function planUndo(history: readonly RevisionRecord[], expected: number | null) {
  const latest = history.at(-1);
  const current = latest?.revision ?? 0;
  assertRevision(expected, current);
  const target = latest?.basedOn === null || latest === undefined ? undefined : history.find((r) => r.revision === latest.basedOn);
  if (!target) throw new AppError('sentence_nothing_to_undo', { details: { revision: current } });
  const version: SentenceVersion = {
    origin: target.origin,
    translations: target.translations,
    translationErrors: target.translationErrors,
  };
  return { current, kind: 'undo' as const, basedOn: target.basedOn, version };
}
