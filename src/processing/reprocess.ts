/**
 * Task retry (`POST /tasks/{id}/retry`): a failed task with stored audio is moved to
 * `processing` by the task service, and this job rebuilds its transcript from that audio
 * (recognition, translations, and the summary an import asked for), then completes or fails
 * it through the task service, which announces `recording.completed` / `recording.failed`.
 * An imported task is charged its import price again under a per-retry idempotency key (the
 * failed import was never charged); a live recording's minutes were charged while recording.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { AudioTools } from '../engines/audio/port.js';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Glossary } from '../glossary/index.js';
import type { JobContext, JobQueue } from '../jobs/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { isRetryable } from '../platform/retry.js';
import { withLocalFile } from '../storage/local-file.js';
import type { BlobStore } from '../storage/types.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import type { TaskReprocessor, TaskService } from '../tasks/service.js';
import type { TaskRecord, TaskStore } from '../tasks/store.js';
import { decodeToPcmFile, type PcmFile } from './pcm-file.js';
import { recognizeIntoTask } from './recognize.js';
import { type SummaryRequest, summarizeTask } from './summarize.js';
import { translateTask } from './translate.js';

export const REPROCESS_JOB = 'task.reprocess';

/** What an import asked for, when the task came from one (the imports feature answers). */
export interface ReprocessSettings {
  recognitionMode: 'single' | 'multi_speaker';
  glossary: Glossary | null;
  summary: SummaryRequest | null;
}

export interface ReprocessDeps {
  tasks: TaskStore;
  outcomes: Pick<TaskService, 'complete' | 'fail'>;
  engines: EngineRegistry;
  blobs: BlobStore;
  billing: BillingService;
  templates: SummaryTemplateCatalogue;
  logger: Logger;
  /** Decodes the stored audio (the composition root's AudioTools). */
  audio: Pick<AudioTools, 'decodeToFile'>;
  tempDir: string;
  /** The import's settings for an imported task, else null. */
  settingsOf(task: TaskRecord): Promise<ReprocessSettings | null>;
}

/**
 * The task service's `TaskReprocessor`: queues the durable job. It needs only the queue, so
 * the task service gets it at construction; the job's handler (below) is built afterwards,
 * with the task service for the outcome.
 */
export function reprocessQueue(jobs: JobQueue): TaskReprocessor {
  return {
    async reprocess(task, options) {
      await jobs.enqueue(
        REPROCESS_JOB,
        { taskId: task.taskId, summary: options?.summary ?? null, summaryKey: options?.summaryKey ?? null },
        { maxAttempts: 3, dedupeKey: `reprocess:${task.taskId}:${task.updatedAt}` },
      );
    },
  };
}

export interface ReprocessJob {
  /** `summary`: asked for by whoever queued it (a recovered live recording); an import's own settings win. */
  handle(p: { taskId: string; summary?: SummaryRequest | null; summaryKey?: string | null }, ctx: JobContext): Promise<void>;
}

export function createReprocessJob(d: ReprocessDeps): ReprocessJob {
  return {
    async handle({ taskId, summary, summaryKey }, ctx) {
      const task = await d.tasks.getTask(taskId);
      if (task?.processingStatus !== 'processing' || !task.audioKey) return;
      try {
        await run(d, task, ctx, summary ?? null, summaryKey ?? null);
        await d.outcomes.complete(taskId, {});
      } catch (err) {
        const retryable = isRetryable(err);
        if (retryable && ctx.attempt < ctx.maxAttempts) throw err;
        d.logger.error({ err, task_id: taskId }, 'reprocessing failed');
        const code = err instanceof EngineError || err instanceof AppError ? err.code : 'internal_error';
        await d.outcomes.fail(taskId, { source: 'processing', code, message: 'Reprocessing failed.' });
      }
    },
  };
}

async function run(
  d: ReprocessDeps,
  task: TaskRecord,
  ctx: JobContext,
  summary: SummaryRequest | null,
  summaryKey: string | null,
): Promise<void> {
  const imported = await d.settingsOf(task);
  const settings: ReprocessSettings | null =
    imported ??
    (summary ? { recognitionMode: task.recognitionMode === 'multi_speaker' ? 'multi_speaker' : 'single', glossary: null, summary } : null);
  // The original upload when there is one (an imported task keeps it; the M4A copy is lossy
  // again), else the stored M4A; decoded once to a PCM file read in windows (removed when done).
  const key = (task.sourceKey && (await d.blobs.stat(task.sourceKey)) ? task.sourceKey : task.audioKey) as string;
  mkdirSync(d.tempDir, { recursive: true });
  const pcmPath = join(d.tempDir, `${task.taskId}-${randomUUID()}.pcm`);
  try {
    const audio = await withLocalFile(d.blobs, key, join(d.tempDir, `${task.taskId}-${randomUUID()}.src`), (path) =>
      decodeToPcmFile(d.audio, path, pcmPath, { signal: ctx.signal }),
    );
    await rebuild(d, task, audio, settings, ctx, summaryKey);
  } finally {
    rmSync(pcmPath, { force: true });
  }
}

async function rebuild(
  d: ReprocessDeps,
  task: TaskRecord,
  audio: PcmFile,
  settings: ReprocessSettings | null,
  ctx: JobContext,
  summaryKey: string | null,
): Promise<void> {
  const languages = task.transcriptionLanguages ?? [];
  const mode = settings?.recognitionMode ?? (task.recognitionMode === 'multi_speaker' ? 'multi_speaker' : 'single');
  await recognizeIntoTask(d, task.taskId, audio, { languages, recognitionMode: mode, glossary: settings?.glossary, signal: ctx.signal });
  if (task.translationLanguages?.length) {
    await translateTask(d, task.taskId, {
      languages: task.translationLanguages,
      sourceLanguage: languages[0] ?? 'en',
      glossary: settings?.glossary,
      signal: ctx.signal,
    });
  }
  const principal = { accountId: task.accountId, keyId: task.keyId };
  if (settings?.summary) {
    await summarizeTask(d, principal, task.taskId, settings.summary, {
      idempotencyKey: summaryKey ?? `summary:reprocess:${task.taskId}:${task.updatedAt}`,
    });
  }
  if (task.typeSource === 'import') {
    const durationMs = audio.durationMs;
    await d.billing.chargeOneOff(principal, {
      type: 'import',
      taskId: task.taskId,
      points: d.billing.prices.importCost(durationMs, {
        translationLanguages: task.translationLanguages?.length ?? 0,
        diarization: mode === 'multi_speaker',
      }),
      minutes: Math.max(1, Math.ceil(durationMs / 60_000)),
      idempotencyKey: `import:reprocess:${task.taskId}:${task.updatedAt}`,
    });
  }
}
