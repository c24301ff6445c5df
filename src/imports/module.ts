/**
 * The imports feature, wired from the app's dependencies: the service (api role), the job
 * pipeline and the start-timeout sweep (worker role; the sweep also runs with the api role so
 * imports fail with PROCESSING_TIMEOUT even when no worker runs), and its links to the task
 * and webhook features (import status for delete/force-fail, webhook routing, task retry).
 */
import { join } from 'node:path';
import type { AppDeps } from '../app.js';
import { broadcastTaskRouting, firstRouting } from '../broadcasts/routing.js';
import { glossaryLimits } from '../glossary/index.js';
import type { Authenticator } from '../platform/auth/types.js';
import { SSE_HEARTBEAT_MS } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { exponentialBackoff } from '../platform/retry.js';
import { createReprocessor, REPROCESS_JOB } from '../processing/reprocess.js';
import { tasksOf } from '../tasks/module.js';
import { taskOutcomeWebhooks } from '../webhooks/task-outcomes.js';
import { IMPORT_JOB, ImportPipeline } from './pipeline.js';
import { registerImportRoutes } from './routes.js';
import { importTaskRouting } from './routing.js';
import { ImportService } from './service.js';
import { ImportStore } from './store.js';

export interface ImportsModule {
  store: ImportStore;
  service: ImportService;
  pipeline: ImportPipeline;
}

const shared = new WeakMap<object, ImportsModule>();

/** The one imports module of an app; also connects the task and webhook features to it. */
export function importsOf(deps: AppDeps): ImportsModule {
  const existing = shared.get(deps);
  if (existing) return existing;
  const s = deps.config.imports;
  const tasks = tasksOf(deps);
  const store = new ImportStore(deps.database, deps.now);
  const tempDir = join(deps.config.platform.dataDir, 'tmp', 'imports');
  const logger = deps.logger.child({ component: 'imports' });
  const service = new ImportService({
    imports: store,
    tasks: tasks.store,
    billing: deps.billing,
    limits: deps.limits,
    jobs: deps.jobs,
    blobs: deps.blobs,
    engines: deps.engines,
    templates: deps.summaryTemplates,
    glossaryLimits: glossaryLimits(deps.config),
    logger,
    now: deps.now,
    ffmpegPath: deps.config.engines.ffmpegPath,
    tempDir,
    settings: s,
  });
  const pipeline = new ImportPipeline({
    database: deps.database,
    imports: store,
    tasks: tasks.store,
    outcomes: tasks.tasks,
    engines: deps.engines,
    blobs: deps.blobs,
    billing: deps.billing,
    templates: deps.summaryTemplates,
    webhooks: deps.webhooks,
    bus: deps.bus,
    logger,
    ffmpegPath: deps.config.engines.ffmpegPath,
    tempDir,
    bounds: { minDurationMs: s.minDurationMs, maxDurationMs: s.maxDurationMs },
  });
  tasks.tasks.imports = {
    isProcessing: async (importId) => {
      const imp = await store.get(importId);
      return imp !== null && (imp.status === 'pending' || imp.status === 'processing');
    },
    forget: (importId) => store.delete(importId),
  };
  tasks.tasks.reprocessor = reprocessorOf(deps, store);
  // Task outcomes write their webhooks in their own transaction; an import announces its own
  // (recording.* then import.*), and later outcomes of its task go to its callback_url.
  // A broadcast's recordings go to the broadcast's callback_url.
  tasks.tasks.outcomeEffects = taskOutcomeWebhooks(deps.webhooks, firstRouting(importTaskRouting(store), broadcastTaskRouting()));
  const mod = { store, service, pipeline };
  shared.set(deps, mod);
  return mod;
}

function reprocessorOf(deps: AppDeps, store: ImportStore) {
  const tasks = tasksOf(deps);
  return createReprocessor({
    tasks: tasks.store,
    outcomes: tasks.tasks,
    engines: deps.engines,
    blobs: deps.blobs,
    billing: deps.billing,
    templates: deps.summaryTemplates,
    jobs: deps.jobs,
    logger: deps.logger.child({ component: 'reprocess' }),
    ffmpegPath: deps.config.engines.ffmpegPath,
    tempDir: join(deps.config.platform.dataDir, 'tmp', 'reprocess'),
    async settingsOf(task) {
      const imp = task.importId ? await store.get(task.importId) : null;
      if (!imp) return null;
      return { recognitionMode: imp.options.recognitionMode, glossary: imp.options.glossary, summary: imp.options.summary };
    },
  });
}

export function registerImports(deps: AppDeps, http: HttpApp, auth: Authenticator): void {
  registerImportRoutes(http, {
    auth,
    imports: importsOf(deps).service,
    bus: deps.bus,
    heartbeatMs: SSE_HEARTBEAT_MS,
    rateLimiter: deps.rateLimiter,
    uploadsPerMinute: deps.config.imports.uploadsPerMinute,
  });
}

/** Worker role: import and reprocessing jobs. */
export function startImportWorker(deps: AppDeps): void {
  const mod = importsOf(deps);
  const s = deps.config.imports;
  deps.jobs.work<{ importId: string }>(IMPORT_JOB, (p, ctx) => mod.pipeline.handle(p, ctx), {
    concurrency: s.concurrency,
    backoffMs: exponentialBackoff({ baseMs: s.retryDelayMs }),
  });
  const reprocessor = tasksOf(deps).tasks.reprocessor as ReturnType<typeof createReprocessor>;
  deps.jobs.work<{ taskId: string }>(REPROCESS_JOB, (p, ctx) => reprocessor.handle(p, ctx), {
    concurrency: 1,
    backoffMs: exponentialBackoff({ baseMs: s.retryDelayMs }),
  });
}

/**
 * Fails imports still pending after the start timeout with PROCESSING_TIMEOUT (a conditional
 * move: a worker that took the job first wins). Returns the stop function.
 */
export function startTimeoutSweep(deps: AppDeps): () => void {
  const mod = importsOf(deps);
  const timeout = deps.config.imports.startTimeoutMs;
  const sweep = async () => {
    const stale = await mod.store.pendingSince(new Date(deps.now().getTime() - timeout));
    for (const imp of stale) await mod.pipeline.failImport(imp, 'PROCESSING_TIMEOUT', 'no worker started the import in time', ['pending']);
  };
  const timer = setInterval(
    () => void sweep().catch((err: unknown) => deps.logger.error({ err }, 'import timeout sweep failed')),
    Math.max(50, Math.min(30_000, Math.floor(timeout / 4))),
  );
  timer.unref();
  return () => clearInterval(timer);
}
