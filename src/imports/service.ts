/**
 * What a user does with imports: the quota pre-check, the upload (checks, then the task,
 * the import record and the job), reading one import and the list. The upload answers only
 * after the file is on disk, its format is known from its content and its duration is
 * measured, so credit is checked against the real estimate (see docs/imports.md).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ImportBreakdown } from '../billing/prices.js';
import type { BillingService } from '../billing/service.js';
import { detectAudioFormat } from '../engines/audio/format.js';
import type { AudioTools, ProbeResult } from '../engines/audio/port.js';
import { translationTargets } from '../engines/offer.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { GlossaryLimits } from '../glossary/index.js';
import type { JobQueue } from '../jobs/types.js';
import type { LimitsCalculator } from '../plans/limits.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { selectSummarizer } from '../processing/summarize.js';
import type { BlobStore } from '../storage/types.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import { fitTaskName } from '../tasks/name.js';
import type { TaskStore } from '../tasks/store.js';
import { assertPlausibleDuration, assertSpeechHeader } from './audio-checks.js';
import { parseImportForm } from './options.js';
import { IMPORT_JOB } from './pipeline.js';
import { snapshotEvent } from './progress.js';
import { parseQuotaCheck } from './quota-check.js';
import type { ImportRecord, ImportStatus, ImportStore } from './store.js';
import { readUpload } from './upload.js';

export const ACCEPTED_FORMATS = ['mp3', 'wav', 'm4a'] as const;

export interface ImportServiceDeps {
  imports: ImportStore;
  tasks: TaskStore;
  billing: BillingService;
  limits: LimitsCalculator;
  jobs: JobQueue;
  blobs: BlobStore;
  engines: EngineRegistry;
  templates: SummaryTemplateCatalogue;
  glossaryLimits: GlossaryLimits;
  logger: Logger;
  now: () => Date;
  /** Measures an upload's duration (the composition root's AudioTools). */
  audio: Pick<AudioTools, 'inspect' | 'probe'>;
  tempDir: string;
  settings: { maxBytes: number; minDurationMs: number; maxDurationMs: number; attempts: number };
}

export interface QuotaCheck {
  allowed: boolean;
  reason: null | 'insufficient_credit' | 'plan_not_allowed' | 'plan_daily_limit_reached';
  is_unlimited: boolean;
  remain_quota: number | null;
  duration_minutes: number;
  /** Speech recognition only, as the spec defines it. */
  estimated_points: number;
  /** Extension: the whole price, part by part. */
  estimate: ImportBreakdown;
}

export class ImportService {
  constructor(private readonly d: ImportServiceDeps) {}

  /**
   * The spec's pre-check, plus the `estimate` extension: every part of the import's price.
   * `allowed` is checked against what the upload checks (recognition, translation and
   * diarization); the summary is charged when it is made (docs/imports.md "The quota check").
   */
  async checkQuota(principal: Principal, body: unknown): Promise<QuotaCheck> {
    const q = parseQuotaCheck(body, this.d.settings);
    const standing = await this.d.billing.standing(principal);
    const estimate = this.d.billing.prices.importBreakdown(q.durationMs, q);
    const base = {
      duration_minutes: Math.ceil(q.durationMs / 60_000),
      estimated_points: this.d.billing.prices.importEstimate(q.durationMs),
      estimate,
    };
    const unlimited = standing.plan.mode !== 'credit';
    const refuse = (reason: QuotaCheck['reason']): QuotaCheck => ({
      allowed: false,
      reason,
      is_unlimited: unlimited,
      remain_quota: unlimited ? null : standing.available,
      ...base,
    });
    try {
      PlanService.assertFeature(standing.plan, 'import');
    } catch {
      return refuse('plan_not_allowed');
    }
    try {
      await this.d.limits.assertCanStart(principal, standing.plan, standing.policy, { transport: 'rest', session: false }, this.d.now());
    } catch (err) {
      if (err instanceof AppError && err.code === 'plan_daily_limit_reached') return refuse('plan_daily_limit_reached');
      throw err;
    }
    if (!unlimited) {
      try {
        await this.d.billing.assertCanAfford(principal, this.d.billing.prices.importCost(q.durationMs, q), standing);
      } catch (err) {
        if (err instanceof AppError && err.code === 'auth_quota_exceeded') return refuse('insufficient_credit');
        throw err;
      }
    }
    return { allowed: true, reason: null, is_unlimited: unlimited, remain_quota: unlimited ? null : standing.available, ...base };
  }

  /** POST /imports: 202 with the import; every refusal leaves nothing stored. */
  async accept(principal: Principal, request: FastifyRequest): Promise<ImportRecord> {
    // Refusals that do not depend on the file come before a byte of it is stored.
    const standing = await this.d.billing.standing(principal);
    PlanService.assertFeature(standing.plan, 'import');
    await this.d.billing.assertCanCharge(principal, standing);
    await this.d.limits.assertCanStart(principal, standing.plan, standing.policy, { transport: 'rest', session: false }, this.d.now());

    const upload = await readUpload(request, { tempDir: this.d.tempDir, maxBytes: this.d.settings.maxBytes });
    try {
      // The file first: a wrong file is the mistake to report, whatever the other fields say.
      const format = detectAudioFormat(upload.head);
      if (!(ACCEPTED_FORMATS as readonly string[]).includes(format)) {
        throw new AppError('import_invalid_format', {
          message: `The file's content is ${format === 'unknown' ? 'not a known audio format' : format}; use mp3, wav or m4a.`,
          details: { detected: format, accepted: ACCEPTED_FORMATS },
        });
      }
      const { options, callbackUrl } = parseImportForm(upload.fields, {
        templates: this.d.templates,
        glossaryLimits: this.d.glossaryLimits,
      });
      await this.assertLanguageCap(principal, standing, options.transcriptionLanguages.length);
      this.assertLanguagesServed(options.transcriptionLanguages, options.translationLanguages);
      if (options.summary) {
        // A summary is one of the plan's one-off features; a custom prompt needs a language model.
        PlanService.assertFeature(standing.plan, 'summary', 'summary_template');
        if (options.summary.mode === 'custom') selectSummarizer(this.d.engines, options.transcriptionLanguages[0] ?? 'en', true);
      }
      // Decoding stops just past the longest import: a file that decodes to more is accepted
      // and fails as too long (the spec's import_duration_out_of_range), at the cost of the limit.
      const undecodable = () =>
        new AppError('import_invalid_format', {
          message: `The file looks like ${format} but cannot be decoded.`,
          details: { detected: format },
        });
      const header = await this.d.audio.inspect(upload.path).catch(() => {
        throw undecodable();
      });
      assertSpeechHeader(header, format);
      let probe: ProbeResult;
      try {
        probe = await this.d.audio.probe(upload.path, { maxDurationMs: this.d.settings.maxDurationMs });
      } catch {
        throw undecodable();
      }
      assertPlausibleDuration(probe, upload.size, format);
      const durationMs = probe.durationMs;
      // The full price of this import (translation and diarization included) must be covered.
      if (standing.plan.mode === 'credit' && !probe.over) {
        const points = this.d.billing.prices.importCost(durationMs, {
          translationLanguages: options.translationLanguages.length,
          diarization: options.recognitionMode === 'multi_speaker',
        });
        try {
          await this.d.billing.assertCanAfford(principal, points, standing);
        } catch (err) {
          if (err instanceof AppError && err.code === 'auth_quota_exceeded') {
            throw new AppError('stt_quota_exceeded', { message: 'The credit does not cover this import.', details: { ...err.details } });
          }
          throw err;
        }
      }

      const importId = randomUUID();
      const taskId = randomUUID();
      const sourceKey = `tasks/${taskId}/source.${format}`;
      await this.d.blobs.put(sourceKey, createReadStream(upload.path));
      try {
        await this.d.tasks.createTask({
          taskId,
          accountId: principal.accountId,
          keyId: principal.keyId,
          title: titleOf(upload.filename),
          type: 'transcribe',
          typeSource: 'import',
          recognitionMode: options.recognitionMode,
          processingStatus: 'importing',
          transcriptionLanguages: options.transcriptionLanguages,
          translationLanguages: options.translationLanguages.length ? options.translationLanguages : null,
          durationMs,
          importId,
          sourceKey,
        });
        const record = await this.d.imports.insert({
          importId,
          accountId: principal.accountId,
          keyId: principal.keyId,
          taskId,
          originalFilename: upload.filename,
          fileSizeBytes: upload.size,
          format,
          durationMs,
          sourceKey,
          options,
          callbackUrl,
        });
        // fairKey: accounts take turns in the queue (docs/imports.md "Fair share").
        await this.d.jobs.enqueue(
          IMPORT_JOB,
          { importId },
          { maxAttempts: this.d.settings.attempts, dedupeKey: `import:${importId}`, fairKey: principal.accountId },
        );
        return record;
      } catch (err) {
        // Not accepted after all: remove what was stored so far.
        await this.d.tasks.deleteTaskRows(taskId, 'importing').catch(() => false);
        await this.d.imports.delete(importId).catch(() => {});
        await this.d.blobs.deletePrefix(`tasks/${taskId}/`).catch(() => {});
        throw err;
      }
    } finally {
      upload.discard();
    }
  }

  private async assertLanguageCap(principal: Principal, standing: Awaited<ReturnType<BillingService['standing']>>, count: number) {
    try {
      await this.d.limits.assertCanStart(
        principal,
        standing.plan,
        standing.policy,
        { transport: 'rest', session: false, transcriptionLanguages: count },
        this.d.now(),
      );
    } catch (err) {
      if (err instanceof AppError && err.code === 'too_many_languages') {
        throw new AppError('validation_failed', {
          message: `At most ${(err.details as { max: number }).max} transcription languages on this plan; got ${count}.`,
          details: { field: 'transcription_languages', reason: 'too_many_languages', ...err.details },
        });
      }
      throw err;
    }
  }

  /**
   * A language no engine here serves is refused up front, naming the languages offered
   * (GET /api/v1/languages, src/engines/offer.ts). Each check runs where its engines are
   * loaded: an api-only process has translators but no file recognizers (src/engines/index.ts),
   * and a process without any recognizer accepts the import for a worker that may have one
   * (the task fails there with stt_init_failed and can be retried once one is installed).
   */
  private assertLanguagesServed(transcription: string[], translation: string[]): void {
    const engines = this.d.engines;
    const offered = engines.offeredLanguages().import;
    const anyRecognizer = engines.enginesOf('file-stt').length > 0;
    for (const lang of offered && anyRecognizer ? transcription : []) {
      if (!engines.serves({ kind: 'file-stt', language: lang })) {
        throw new AppError('validation_failed', {
          message: `No speech recognizer here serves "${lang}".`,
          details: { field: 'transcription_languages', language: lang, valid_values: offered },
        });
      }
    }
    const from = transcription[0] as string;
    for (const to of engines.enginesOf('translator').length ? translation : []) {
      if (!engines.serves({ kind: 'translator', from, to })) {
        throw new AppError('validation_failed', {
          message: `No translator here serves ${from} to "${to}".`,
          details: { field: 'translation_languages', language: to, valid_values: translationTargets(engines, from) },
        });
      }
    }
  }

  async get(principal: Principal, importId: string): Promise<ImportRecord> {
    const rec = UUID.test(importId) ? await this.d.imports.getOwned(principal.accountId, importId) : null;
    if (!rec) throw new AppError('import_not_found', { details: { import_id: importId } });
    return rec;
  }

  /** The wire form of imports, pending ones with their place in the queue. */
  async toJson(records: ImportRecord[]) {
    const positions = await this.d.imports.queuePositions(records.filter((r) => r.status === 'pending').map((r) => r.importId));
    return records.map((r) => importJson(r, positions.get(r.importId)));
  }

  /** One import's progress event now (the progress stream's first event and its re-reads). */
  async snapshot(principal: Principal, importId: string) {
    const rec = await this.get(principal, importId);
    const positions = rec.status === 'pending' ? await this.d.imports.queuePositions([importId]) : new Map<string, number>();
    return snapshotEvent(rec, positions.get(importId));
  }

  async list(principal: Principal, page: number, perPage: number, status: ImportStatus | null) {
    const { rows, total } = await this.d.imports.list(principal.accountId, page, perPage, status);
    return {
      data: await this.toJson(rows),
      meta: { current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total },
    };
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The task's title: the file name without its extension, trimmed to the name limit. */
function titleOf(filename: string): string {
  return fitTaskName(filename.replace(/\.[A-Za-z0-9]{1,5}$/, ''), 'Import');
}

/** "1.2 MB": the spec's human-readable file_size. */
export function humanSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** The spec's Import fields (task_id only once completed) and the queue_position extension. */
export function importJson(i: ImportRecord, queuePosition?: number) {
  return {
    import_id: i.importId,
    status: i.status,
    stage: i.status === 'processing' ? i.stage : null,
    progress: i.progress,
    message: i.message,
    original_filename: i.originalFilename,
    file_size: humanSize(i.fileSizeBytes),
    task_id: i.status === 'completed' ? i.taskId : null,
    created_at: i.createdAt,
    error_code: i.errorCode,
    error_message: i.errorMessage,
    queue_position: i.status === 'pending' ? (queuePosition ?? null) : null,
  };
}
