/**
 * The import job: converting -> transcribing -> translating -> summarizing, then the charge
 * and the announcement. Every step can run again after a crash: the transcript is rebuilt in
 * one transaction, translations skip finished sentences, the summary and import charges have
 * idempotency keys, and status moves are conditional (only the caller that moves the import
 * to `completed` or `failed` sends its webhooks, each with a dedupe key).
 *
 * Temporary engine errors (EngineError.retryable) are retried by the job queue while the
 * import stays `processing`; anything else, or the last attempt, fails the import.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { EventBus } from '../bus/types.js';
import { type AudioTools, OutputLimitError } from '../engines/audio/port.js';
import { EngineError } from '../engines/errors.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { JobContext } from '../jobs/types.js';
import { crashPoint } from '../platform/crash-points.js';
import { AppError } from '../platform/errors/app-error.js';
import { ERRORS, type ErrorCode } from '../platform/errors/registry.js';
import { isRetryable } from '../platform/retry.js';
import { BYTES_PER_MS, decodeToPcmFile, type PcmFile } from '../processing/pcm-file.js';
import { recognizeIntoTask } from '../processing/recognize.js';
import { summarizeTask } from '../processing/summarize.js';
import { translateTask } from '../processing/translate.js';
import { withLocalFile } from '../storage/local-file.js';
import type { BlobStore } from '../storage/types.js';
import type { Database } from '../store/database.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import type { TaskService } from '../tasks/service.js';
import type { TaskStore } from '../tasks/store.js';
import { eventData } from '../webhooks/events.js';
import type { WebhookService } from '../webhooks/service.js';
import { errorCode, generalMessage, ImportFailure, NotMoved, notMoved } from './failures.js';
import { type ProgressEvent, progressData, progressTopic } from './progress.js';

export { generalMessage } from './failures.js';

import type { ImportRecord, ImportStage, ImportStatus, ImportStore } from './store.js';

export const IMPORT_JOB = 'import.process';

export interface PipelineDeps {
  database: Database;
  imports: ImportStore;
  tasks: TaskStore;
  /** The task's final status goes through the task service (one place for the outcome rules). */
  outcomes: Pick<TaskService, 'complete' | 'fail'>;
  engines: EngineRegistry;
  blobs: BlobStore;
  billing: BillingService;
  templates: SummaryTemplateCatalogue;
  webhooks: WebhookService;
  bus: EventBus;
  logger: Logger;
  /** Decoding and the M4A copy (the composition root's AudioTools). */
  audio: Pick<AudioTools, 'decodeToFile' | 'encodeFile'>;
  tempDir: string;
  bounds: { minDurationMs: number; maxDurationMs: number };
  /** Temporary disk one import may fill: its PCM (counted as written) and its M4A copy. */
  maxTempBytes: number;
}

/** Stage windows of the overall percent (the stage's own fraction moves inside its window). */
const WINDOWS: Record<ImportStage, [number, number]> = {
  converting: [1, 10],
  transcribing: [10, 75],
  translating: [75, 92],
  summarizing: [92, 99],
};

export class ImportPipeline {
  constructor(private readonly d: PipelineDeps) {}

  /** The job handler (idempotent; see the file comment). */
  async handle(payload: { importId: string }, ctx: JobContext): Promise<void> {
    const imp = await this.d.imports.get(payload.importId);
    if (!imp || imp.status === 'completed' || imp.status === 'failed') return;
    // A job reclaimed after its worker died more times than it may be tried: fail cleanly.
    if (ctx.attempt > ctx.maxAttempts) {
      await this.failImport(imp, 'internal_error', 'attempts exhausted after worker restarts');
      return;
    }
    if (!(await this.d.imports.start(imp.importId))) return;
    this.removeTempFiles(imp.importId); // left by an attempt whose worker died
    try {
      await this.run(imp, ctx);
    } catch (err) {
      const retryable = isRetryable(err) && !ctx.signal.aborted;
      if ((retryable && ctx.attempt < ctx.maxAttempts) || ctx.signal.aborted) {
        this.d.logger.warn(
          { err: (err as Error).message, import_id: imp.importId, attempt: ctx.attempt },
          'import attempt failed; retrying',
        );
        await this.retrying(imp.importId).catch(() => {});
        throw err;
      }
      const code = errorCode(err);
      // The file's own fault (too short, too long: a 4xx code) is the user's outcome, not the service's error.
      const status = ERRORS[code].status;
      if (err instanceof ImportFailure && status !== null && status < 500)
        this.d.logger.warn({ reason: err.message, import_id: imp.importId, code }, 'import failed');
      else this.d.logger.error({ err, import_id: imp.importId, code }, 'import failed');
      await this.failImport(imp, code, (err as Error).message);
    }
  }

  private async run(imp: ImportRecord, ctx: JobContext): Promise<void> {
    const { tasks } = this.d;
    // converting: decode, check the duration, keep an M4A copy for playback and export.
    await this.progress(imp, 'converting', 0, 'Converting the audio.');
    const task = await tasks.getTask(imp.taskId);
    if (!task) throw new ImportFailure('internal_error', 'the task of this import was deleted');
    // A resumed job finds the task where the previous attempt left it.
    const status =
      task.processingStatus === 'importing' ? (await tasks.setStatus(task.taskId, 'uploading')).processingStatus : task.processingStatus;
    const pcmPath = join(this.d.tempDir, `${imp.importId}-audio.pcm`);
    try {
      const converted = await this.convert(imp, pcmPath);
      await this.progress(imp, 'converting', 1, 'Audio converted.');
      if (status === 'uploading') await tasks.setStatus(imp.taskId, 'processing');
      await this.runFrom(imp, ctx, converted);
    } finally {
      rmSync(pcmPath, { force: true });
    }
  }

  private async runFrom(imp: ImportRecord, ctx: JobContext, converted: { audio: PcmFile; durationMs: number }): Promise<void> {
    const { tasks } = this.d;
    const o = imp.options;
    const signal = ctx.signal;
    const principal = { accountId: imp.accountId, keyId: imp.keyId };
    const { audio, durationMs } = converted;

    await crashPoint('import.converted');
    // transcribing
    await this.progress(imp, 'transcribing', 0, 'Transcribing.');
    let last = 0;
    const count = await recognizeIntoTask(this.d, imp.taskId, audio, {
      languages: o.transcriptionLanguages,
      recognitionMode: o.recognitionMode,
      glossary: o.glossary,
      signal,
      onProgress: (f) => {
        if (f - last < 0.02) return;
        last = f;
        void this.progress(imp, 'transcribing', f, 'Transcribing.').catch(() => {});
      },
    });
    await this.progress(imp, 'transcribing', 1, `${count} sentences recognized.`);
    await crashPoint('import.transcribed');

    // translating
    if (o.translationLanguages.length) {
      await this.progress(imp, 'translating', 0, 'Translating.');
      await translateTask(this.d, imp.taskId, {
        languages: o.translationLanguages,
        sourceLanguage: o.transcriptionLanguages[0]!,
        glossary: o.glossary,
        signal,
        onProgress: (f) => void this.progress(imp, 'translating', f, 'Translating.').catch(() => {}),
      });
      await this.progress(imp, 'translating', 1, 'Translated.');
      await crashPoint('import.translated');
    }

    // summarizing: a summary that cannot be made (credit, content filter) leaves the task without one.
    if (o.summary) {
      await this.progress(imp, 'summarizing', 0, 'Summarizing.');
      const outcome = await summarizeTask(
        { ...this.d, templates: this.d.templates },
        principal,
        imp.taskId,
        { mode: o.summary.mode, template: o.summary.template, prompt: o.summary.prompt },
        { idempotencyKey: `summary:import:${imp.importId}`, signal },
      );
      if (!outcome.ok) {
        if (outcome.retryable) throw new EngineError(outcome.code, outcome.message, { retryable: true });
        this.d.logger.warn({ import_id: imp.importId, code: outcome.code }, 'import completes without a summary');
      }
      await this.progress(imp, 'summarizing', 1, outcome.ok ? 'Summary ready.' : 'No summary.');
      await crashPoint('import.summarized');
    }

    // The charge: once per import (idempotency key), only now that it succeeded.
    const points = this.d.billing.prices.importCost(durationMs, {
      translationLanguages: o.translationLanguages.length,
      diarization: o.recognitionMode === 'multi_speaker',
    });
    try {
      await this.d.billing.chargeOneOff(principal, {
        type: 'import',
        taskId: imp.taskId,
        points,
        minutes: Math.max(1, Math.ceil(durationMs / 60_000)),
        idempotencyKey: `import:${imp.importId}`,
      });
    } catch (err) {
      if (err instanceof AppError && (err.code === 'auth_quota_exceeded' || err.code === 'auth_insufficient_credit')) {
        throw new ImportFailure('stt_quota_exceeded', 'the credit no longer covers the import');
      }
      throw err;
    }
    await crashPoint('import.charged');

    // One transaction: the task's outcome (first, while the import is still processing, so the
    // task service leaves the announcement to this import), the import's own move, and both
    // webhooks chained (recording.completed then import.completed). Nothing is announced twice.
    const moved = await this.d.database.db
      .transaction()
      .execute(async (tx) => {
        const done = await tasks.getTask(imp.taskId, tx);
        const finished = done?.processingStatus === 'processing' ? await this.d.outcomes.complete(imp.taskId, { durationMs }, tx) : done;
        if (!(await this.d.imports.complete(imp.importId, tx))) throw new NotMoved();
        await this.d.webhooks.notifySequence(
          { accountId: imp.accountId, keyId: imp.keyId, callbackUrl: imp.callbackUrl },
          [
            {
              event: 'recording.completed',
              dedupeKey: `recording.completed:${imp.taskId}:import`,
              data: eventData.recordingCompleted({
                task_id: imp.taskId,
                name: finished?.title ?? imp.originalFilename,
                duration_ms: durationMs,
                type_source: 'import',
                transcription_languages: finished?.transcriptionLanguages ?? o.transcriptionLanguages,
                translation_languages: finished?.translationLanguages ?? null,
              }),
            },
            {
              event: 'import.completed',
              dedupeKey: `import.completed:${imp.importId}`,
              data: eventData.importCompleted({
                import_id: imp.importId,
                task_id: imp.taskId,
                name: finished?.title ?? imp.originalFilename,
                duration_ms: durationMs,
              }),
            },
          ],
          tx,
        );
        return true;
      })
      .catch(notMoved);
    if (!moved) return;
    await this.publish(imp.importId, {
      event: 'completed',
      data: { import_id: imp.importId, status: 'completed', progress: 100, task_id: imp.taskId },
    });
  }

  /** Temporary files of an import are named after it: `<import id>-*`. */
  private removeTempFiles(importId: string): void {
    let names: string[] = [];
    try {
      names = readdirSync(this.d.tempDir);
    } catch {
      return;
    }
    for (const n of names) if (n.startsWith(`${importId}-`)) rmSync(join(this.d.tempDir, n), { force: true });
  }

  /** Decodes the stored source, checks the duration bounds, stores the M4A copy on the task. */
  private async convert(imp: ImportRecord, pcmPath: string): Promise<{ audio: PcmFile; durationMs: number }> {
    const { blobs, tasks, audio: tools } = this.d;
    mkdirSync(this.d.tempDir, { recursive: true });
    const m4a = join(this.d.tempDir, `${imp.importId}-${randomUUID()}.m4a`);
    const copy = join(this.d.tempDir, `${imp.importId}-${randomUUID()}.src`);
    try {
      return await withLocalFile(blobs, imp.sourceKey, copy, async (sourcePath) => {
        const { minDurationMs, maxDurationMs } = this.d.bounds;
        // The PCM may grow to the longest import (and a second), or to the temporary-disk
        // limit if that is smaller: counted as ffmpeg writes it, never taken from a header.
        const maxPcmBytes = Math.min((maxDurationMs + 1000) * BYTES_PER_MS, this.d.maxTempBytes);
        let audio: PcmFile;
        try {
          audio = await decodeToPcmFile(tools, sourcePath, pcmPath, { maxBytes: maxPcmBytes });
        } catch (err) {
          if (err instanceof OutputLimitError) {
            throw new ImportFailure('import_duration_out_of_range', `decoded audio passed ${err.limit} bytes of PCM`);
          }
          throw new ImportFailure('audio_process_failed', `decoding failed: ${(err as Error).message}`);
        }
        const durationMs = audio.durationMs;
        if (durationMs < minDurationMs || durationMs > maxDurationMs) {
          throw new ImportFailure('import_duration_out_of_range', `duration ${durationMs} ms outside ${minDurationMs}..${maxDurationMs}`);
        }
        const audioKey = `tasks/${imp.taskId}/audio.m4a`;
        if (!(await blobs.stat(audioKey))) {
          // What the PCM left of the temporary-disk budget (the M4A is about a quarter of the PCM).
          await tools
            .encodeFile({ path: sourcePath }, m4a, 'm4a', { maxBytes: this.d.maxTempBytes - audio.bytes })
            .catch((err: unknown) => {
              if (err instanceof OutputLimitError) throw new ImportFailure('import_duration_out_of_range', err.message);
              throw err;
            });
          await blobs.put(audioKey, createReadStream(m4a));
        }
        await tasks.setAudio(imp.taskId, audioKey, durationMs);
        return { audio, durationMs };
      });
    } finally {
      rmSync(m4a, { force: true });
    }
  }

  /** Fails the import and its task once, then announces recording.failed and import.failed. */
  async failImport(imp: ImportRecord, code: ErrorCode, detail: string, from?: ImportStatus[]): Promise<void> {
    const message = generalMessage(code);
    // One transaction, as on completion: the task fails first (the import still counts as
    // processing, so the task service leaves the announcement here), then the import, then
    // recording.failed and import.failed chained. Another caller that moved the import first
    // rolls all of it back.
    const moved = await this.d.database.db
      .transaction()
      .execute(async (tx) => {
        const task = await this.d.tasks.getTask(imp.taskId, tx);
        if (task && !['completed', 'failed'].includes(task.processingStatus)) {
          await this.d.outcomes.fail(imp.taskId, { source: 'processing', code, message }, tx).catch(() => {});
        }
        if (!(await this.d.imports.fail(imp.importId, code, message, from, tx))) throw new NotMoved();
        await this.d.webhooks.notifySequence(
          { accountId: imp.accountId, keyId: imp.keyId, callbackUrl: imp.callbackUrl },
          [
            {
              event: 'recording.failed',
              dedupeKey: `recording.failed:${imp.taskId}:import`,
              data: eventData.recordingFailed({ task_id: imp.taskId }),
            },
            {
              event: 'import.failed',
              dedupeKey: `import.failed:${imp.importId}`,
              data: eventData.importFailed({ import_id: imp.importId, error_code: code, error_message: message }),
            },
          ],
          tx,
        );
        return true;
      })
      .catch(notMoved);
    if (!moved) return;
    this.d.logger.info({ import_id: imp.importId, code, detail }, 'import failed');
    await this.publish(imp.importId, {
      event: 'failed',
      data: { import_id: imp.importId, status: 'failed', error_code: code, error_message: message },
    });
  }

  /** Says a retry is coming, at the percent reached (the stream never goes backwards). */
  private async retrying(importId: string): Promise<void> {
    const now = await this.d.imports.get(importId);
    if (now?.status !== 'processing') return;
    const message = 'A temporary error occurred; retrying.';
    const stage = now.stage ?? 'converting';
    await this.d.imports.setStage(importId, stage, now.progress, message);
    await this.publish(importId, { event: 'progress', data: progressData({ ...now, stage, message }) });
  }

  private async progress(imp: ImportRecord, stage: ImportStage, fraction: number, message: string): Promise<void> {
    const [from, to] = WINDOWS[stage];
    const percent = Math.round(from + (to - from) * Math.max(0, Math.min(1, fraction)));
    await this.d.imports.setStage(imp.importId, stage, percent, message);
    await this.publish(imp.importId, {
      event: 'progress',
      data: progressData({ importId: imp.importId, status: 'processing', stage, progress: percent, message }),
    });
  }

  private async publish(importId: string, e: ProgressEvent): Promise<void> {
    await this.d.bus.publish(progressTopic(importId), e).catch((err: unknown) => this.d.logger.warn({ err }, 'progress not published'));
  }
}
