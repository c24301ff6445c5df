/**
 * The imports feature, built once by the composition root: the service (api role), the job
 * pipeline and the reprocessing job (worker role), the start-timeout sweep (api and worker:
 * imports fail with PROCESSING_TIMEOUT even when no worker runs), and the ports it offers the
 * task feature (is the task's import still processing).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { EventBus } from '../bus/types.js';
import type { Config } from '../config.js';
import type { AudioTools } from '../engines/audio/port.js';
import type { EngineRegistry } from '../engines/registry.js';
import { glossaryLimits } from '../glossary/index.js';
import type { JobQueue } from '../jobs/types.js';
import type { LimitsCalculator } from '../plans/limits.js';
import type { Authenticator } from '../platform/auth/types.js';
import { SSE_HEARTBEAT_MS } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import { exponentialBackoff } from '../platform/retry.js';
import { createReprocessJob, REPROCESS_JOB, type ReprocessJob } from '../processing/reprocess.js';
import type { BlobStore } from '../storage/types.js';
import type { Database } from '../store/database.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import type { TaskModule } from '../tasks/module.js';
import type { ImportStatusPort } from '../tasks/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { IMPORT_JOB, ImportPipeline } from './pipeline.js';
import { registerImportRoutes } from './routes.js';
import { ImportService } from './service.js';
import type { ImportStore } from './store.js';

export interface ImportsModule {
  store: ImportStore;
  service: ImportService;
  pipeline: ImportPipeline;
  /** The `task.reprocess` job (task retry and recovered recordings), with the import's settings for imported tasks. */
  reprocessJob: ReprocessJob;
}

export interface ImportsWiring {
  config: Config;
  database: Database;
  store: ImportStore;
  tasks: TaskModule;
  billing: BillingService;
  limits: LimitsCalculator;
  jobs: JobQueue;
  blobs: BlobStore;
  engines: EngineRegistry;
  templates: SummaryTemplateCatalogue;
  webhooks: WebhookService;
  /** Decoding, measuring and encoding audio (src/engines/audio/port.ts). */
  audio: AudioTools;
  bus: EventBus;
  logger: Logger;
  now: () => Date;
}

export function createImportsModule(d: ImportsWiring): ImportsModule {
  const s = d.config.imports;
  const { store } = d;
  const tempDir = join(d.config.platform.dataDir, 'tmp', 'imports');
  const logger = d.logger.child({ component: 'imports' });
  const service = new ImportService({
    imports: store,
    tasks: d.tasks.store,
    billing: d.billing,
    limits: d.limits,
    jobs: d.jobs,
    blobs: d.blobs,
    engines: d.engines,
    templates: d.templates,
    glossaryLimits: glossaryLimits(d.config),
    logger,
    now: d.now,
    audio: d.audio,
    tempDir,
    settings: s,
  });
  const pipeline = new ImportPipeline({
    database: d.database,
    imports: store,
    tasks: d.tasks.store,
    outcomes: d.tasks.tasks,
    engines: d.engines,
    blobs: d.blobs,
    billing: d.billing,
    templates: d.templates,
    webhooks: d.webhooks,
    bus: d.bus,
    logger,
    audio: d.audio,
    tempDir,
    bounds: { minDurationMs: s.minDurationMs, maxDurationMs: s.maxDurationMs },
    maxTempBytes: s.maxTempBytes,
  });
  const reprocessJob = createReprocessJob({
    tasks: d.tasks.store,
    outcomes: d.tasks.tasks,
    engines: d.engines,
    blobs: d.blobs,
    billing: d.billing,
    templates: d.templates,
    logger: d.logger.child({ component: 'reprocess' }),
    audio: d.audio,
    tempDir: join(d.config.platform.dataDir, 'tmp', 'reprocess'),
    async settingsOf(task) {
      const imp = task.importId ? await store.get(task.importId) : null;
      if (!imp) return null;
      return { recognitionMode: imp.options.recognitionMode, glossary: imp.options.glossary, summary: imp.options.summary };
    },
  });
  return { store, service, pipeline, reprocessJob };
}

/** The task feature's view of imports: delete and force-fail refuse while the task's import is processing. */
export function importStatusPort(store: ImportStore): ImportStatusPort {
  return {
    isProcessing: async (importId) => {
      const imp = await store.get(importId);
      return imp !== null && (imp.status === 'pending' || imp.status === 'processing');
    },
    forget: (importId) => store.delete(importId),
  };
}

export function registerImports(
  http: HttpApp,
  d: { auth: Authenticator; imports: ImportsModule; bus: EventBus; rateLimiter: RateLimiter; uploadsPerMinute: number },
): void {
  registerImportRoutes(http, {
    auth: d.auth,
    imports: d.imports.service,
    bus: d.bus,
    heartbeatMs: SSE_HEARTBEAT_MS,
    rateLimiter: d.rateLimiter,
    uploadsPerMinute: d.uploadsPerMinute,
  });
}

/** Worker role: import and reprocessing jobs. */
export function startImportWorker(mod: ImportsModule, jobs: JobQueue, s: Config['imports']): void {
  jobs.work<{ importId: string }>(IMPORT_JOB, (p, ctx) => mod.pipeline.handle(p, ctx), {
    concurrency: s.concurrency,
    backoffMs: exponentialBackoff({ baseMs: s.retryDelayMs }),
  });
  jobs.work<{ taskId: string }>(REPROCESS_JOB, (p, ctx) => mod.reprocessJob.handle(p, ctx), {
    concurrency: 1,
    backoffMs: exponentialBackoff({ baseMs: s.retryDelayMs }),
  });
}

/**
 * Fails imports still pending after the start timeout with PROCESSING_TIMEOUT (a conditional
 * move: a worker that took the job first wins). Returns the stop function.
 */
export function startTimeoutSweep(mod: ImportsModule, o: { timeoutMs: number; now: () => Date; logger: Logger }): () => void {
  const sweep = async () => {
    const stale = await mod.store.pendingSince(new Date(o.now().getTime() - o.timeoutMs));
    for (const imp of stale) await mod.pipeline.failImport(imp, 'PROCESSING_TIMEOUT', 'no worker started the import in time', ['pending']);
  };
  const timer = setInterval(
    () => void sweep().catch((err: unknown) => o.logger.error({ err }, 'import timeout sweep failed')),
    Math.max(50, Math.min(30_000, Math.floor(o.timeoutMs / 4))),
  );
  timer.unref();
  return () => clearInterval(timer);
}
