/**
 * Finalizing a live recording into a task: recording -> uploading (audio encoded to M4A and
 * stored) -> processing (sentences and real-time translations written; translations that
 * real-time translation did not make, and the summary, through the shared src/processing)
 * -> completed through the task service (whose bus event becomes `recording.completed`).
 * No audio at all fails the task with `no_audio`. A force-ended recording keeps its audio and
 * sentences (so `retry` can reprocess it) but leaves the status to the force-fail.
 */
import { createReadStream, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AudioTools } from '../engines/audio/port.js';
import type { Glossary } from '../glossary/index.js';
import type { Principal } from '../platform/auth/types.js';
import { crashPoint } from '../platform/crash-points.js';
import type { SummarizeTaskOptions, SummaryOutcome, SummaryRequest } from '../processing/summarize.js';
import type { TranslateTaskOptions } from '../processing/translate.js';
import type { BlobStore } from '../storage/types.js';
import type { SessionPublisher } from '../stream/session-streams.js';
import type { TaskService } from '../tasks/service.js';
import type { SentenceInput, TranslationInput } from '../tasks/store.js';
import type { StartRequest } from './start.js';

/** `normal`: stop, disconnect, limits, shutdown. `forced`: the task is being force-failed. */
export type FinishKind = 'normal' | 'forced';

/** What finalizing needs from the session's services (part of RecordingDeps). */
export interface FinalizeDeps {
  /** The task's record, written through the task service; its outcome (complete/fail) writes the webhooks. */
  tasks: Pick<
    TaskService,
    'createTask' | 'advance' | 'setAudio' | 'appendSentences' | 'setSpeakers' | 'setTranslations' | 'complete' | 'fail'
  >;
  blobs: BlobStore;
  logger: Logger;
  /** Encodes the recording to M4A (the composition root's AudioTools). */
  audio: Pick<AudioTools, 'encodeFile'>;
  /** Shared post-processing (src/processing): translations when real-time translation was off, the summary. */
  processing: {
    translate(taskId: string, o: TranslateTaskOptions): Promise<unknown>;
    summarize(principal: Principal, taskId: string, req: SummaryRequest, o: SummarizeTaskOptions): Promise<SummaryOutcome>;
  };
  /** Sends a voice-translation event to the client. */
  emit(action: string, payload: Record<string, unknown>): void;
}

/** What finalizing reads of the recording (a `Recording` is one). */
export interface FinishedRecording {
  readonly deps: FinalizeDeps;
  /** The session stream: status changes reach every audience. */
  readonly events: Pick<SessionPublisher, 'publish'>;
  readonly taskId: string;
  readonly principal: Principal;
  readonly start: StartRequest;
  readonly durationMs: number;
  readonly sentences: readonly SentenceInput[];
  /** Speaker names and kept speakers from the session's speaker edits and channel labels. */
  readonly speakerLabels: Readonly<Record<string, string>>;
  readonly keptSpeakers: readonly string[];
  readonly translations: ReadonlyMap<string, ReadonlyMap<number, TranslationInput>>;
  readonly language: string;
  readonly glossary: Glossary | null;
  readonly summary: NonNullable<StartRequest['summary']> | null;
}

export async function finalizeRecording(rec: FinishedRecording, wavPath: string, kind: FinishKind): Promise<'completed' | 'failed'> {
  const { deps, taskId } = rec;
  const tasks = deps.tasks;
  try {
    if (rec.durationMs === 0) {
      if (kind === 'normal') await tasks.fail(taskId, { source: 'no_audio', code: 'no_audio', message: 'No audio was received.' });
      return 'failed';
    }
    if (kind === 'normal') {
      await tasks.advance(taskId, 'uploading');
      rec.events.publish({ event: 'status', data: { status: 'uploading', task_id: taskId } });
    }
    await crashPoint('live.uploading');
    const m4a = `${wavPath}.m4a`;
    try {
      await deps.audio.encodeFile({ path: wavPath }, m4a, 'm4a');
      const key = `tasks/${taskId}/audio.m4a`;
      await deps.blobs.put(key, createReadStream(m4a));
      await tasks.setAudio(taskId, key, rec.durationMs);
    } finally {
      rmSync(m4a, { force: true });
    }
    deps.emit('segment_uploaded', { task_id: taskId, duration_ms: rec.durationMs });
    if (kind === 'normal') {
      await tasks.advance(taskId, 'processing');
      rec.events.publish({ event: 'status', data: { status: 'processing', task_id: taskId } });
    }
    await crashPoint('live.processing');
    if (rec.sentences.length) await tasks.appendSentences(taskId, [...rec.sentences]);
    if (Object.keys(rec.speakerLabels).length || rec.keptSpeakers.length) {
      await tasks.setSpeakers(taskId, { ...rec.speakerLabels }, rec.keptSpeakers);
    }
    for (const [lang, entries] of rec.translations)
      if (entries.size)
        await tasks.setTranslations(
          taskId,
          lang,
          [...entries.values()].sort((a, b) => a.sid - b.sid),
        );
    if (kind === 'forced') return 'failed';

    const targets = rec.start.translationLanguages;
    if (!rec.start.realtimeTranslation && targets.length && rec.sentences.length) {
      await deps.processing.translate(taskId, { languages: targets, sourceLanguage: rec.language, glossary: rec.glossary });
    }
    if (rec.summary) await summarize(rec);
    await crashPoint('live.summarized');
    await tasks.complete(taskId, { durationMs: rec.durationMs });
    return 'completed';
  } catch (err) {
    deps.logger.error({ err, task_id: taskId }, 'finalize failed');
    if (kind === 'normal') await tasks.fail(taskId, { source: 'processing' }).catch(() => {});
    return 'failed';
  }
}

/** A session's summary fields as the shared summarizer takes them (also kept for recovery, recover.ts). */
export function summaryRequestOf(s: NonNullable<StartRequest['summary']>): SummaryRequest {
  return {
    mode: s.mode,
    template: s.mode === 'custom' ? s.promptSlug : s.template,
    prompt: s.prompt,
    language: s.language,
    plainText: s.plainText,
  };
}

/** The requested summary; the client hears `summary_done` or `summary_error` before `task_complete`. */
async function summarize(rec: FinishedRecording): Promise<void> {
  const s = rec.summary;
  if (!s) return;
  const { deps, taskId } = rec;
  if (rec.sentences.length === 0) {
    deps.emit('summary_error', { task_id: taskId, error_code: 'summary_text_empty', message: 'Nothing was recognized to summarize.' });
    return;
  }
  const outcome = await deps.processing.summarize(rec.principal, taskId, summaryRequestOf(s), {
    idempotencyKey: `summary:live:${taskId}`,
  });
  if (outcome.ok) {
    deps.emit('summary_done', {
      task_id: taskId,
      summary_id: outcome.summaryId,
      summary_mode: outcome.mode,
      summary_template: outcome.template,
      summary_plain_text: outcome.plainText,
      summary_language: outcome.language,
      tokens_used: { input: outcome.tokens.input, output: outcome.tokens.output },
    });
  } else {
    deps.emit('summary_error', { task_id: taskId, error_code: outcome.code, message: outcome.message });
  }
}
