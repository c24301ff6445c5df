import { join } from 'node:path';
import { registerAccountRoutes } from './account/routes.js';
import { AccountService } from './account/service.js';
import { asyncApiDocument } from './asyncapi.js';
import { createBillingModule } from './billing/module.js';
import { createBroadcastsModule, registerBroadcasts } from './broadcasts/module.js';
import { broadcastTaskRouting, firstRouting } from './broadcasts/routing.js';
import { InProcessBus } from './bus/in-process.js';
import type { EventBus } from './bus/types.js';
import type { AppDeps, BuildOverrides, ParleyApp } from './composition/app-deps.js';
import { broadcastsDeps } from './composition/broadcasts.js';
import { buildString } from './composition/build-string.js';
import { registerRealtimeRole } from './composition/realtime.js';
import { type Config, ConfigError, rolesWithoutBusProblem } from './config.js';
import { registerCorrectionRoutes } from './corrections/routes.js';
import { CorrectionService } from './corrections/service.js';
import { CorrectionStore } from './corrections/store.js';
import { createFfmpegAudio } from './engines/audio/ffmpeg-audio.js';
import { EngineRegistry } from './engines/registry.js';
import { createImportsModule, importStatusPort, registerImports, startImportWorker, startTimeoutSweep } from './imports/module.js';
import { importTaskRouting } from './imports/routing.js';
import { ImportStore } from './imports/store.js';
import { openJobQueue } from './jobs/create.js';
import { createKeysModule } from './keys/module.js';
import { registerKeyRoutes } from './keys/routes.js';
import { observedEngine } from './metrics/engines.js';
import { installHttpMetrics, registerMetricsRoute, startMetricsListener } from './metrics/http.js';
import { Metrics } from './metrics/metrics.js';
import { registerStateGauges } from './metrics/state.js';
import { MetricsStore } from './metrics/store.js';
import { createHttpServer } from './platform/http/server.js';
import { createLogger } from './platform/logging.js';
import { InMemoryRateLimiter, type RateLimiter } from './platform/rate-limit.js';
import { InMemoryPresence } from './presence/in-memory.js';
import type { Presence } from './presence/types.js';
import { reprocessQueue } from './processing/reprocess.js';
import { registerAsyncApiRoutes } from './realtime/asyncapi-routes.js';
import { registerRetranslateRoutes } from './retranslate/routes.js';
import { RetranslateService } from './retranslate/service.js';
import { migrate } from './schema.js';
import { LiveSearchIndex } from './search/live-index.js';
import { registerSearchRoutes } from './search/routes.js';
import { SearchService } from './search/service.js';
import { SearchStore } from './search/store.js';
import { registerLanguageRoutes } from './served-languages/routes.js';
import { openBlobStore } from './storage/create.js';
import { PostgresChangeFeed } from './store/change-feed.js';
import { openDatabase } from './store/database.js';
import { SessionStreams } from './stream/session-streams.js';
import { createSubtitlesModule } from './subtitles/module.js';
import { registerSummaryRoutes } from './summaries/routes.js';
import { SummaryService } from './summaries/service.js';
import { SummaryTemplateCatalogue } from './summary-templates/catalogue.js';
import { registerSummaryTemplateRoutes } from './summary-templates/routes.js';
import { createTaskModule } from './tasks/module.js';
import { registerTaskRoutes } from './tasks/routes.js';
import { registerTicketRoutes } from './tickets/routes.js';
import { registerTtsRoutes } from './tts/routes.js';
import { TtsService } from './tts/service.js';
import { TtsStreamService } from './tts/stream.js';
import { registerTtsStreamRoute } from './tts/stream-route.js';
import { registerVersionRoutes } from './version/routes.js';
import { registerWebRoutes } from './web/routes.js';
import { creditWebhooks } from './webhooks/credit-notices.js';
import { createWebhooksModule } from './webhooks/module.js';
import { WebhookSender } from './webhooks/signed-sender.js';
import { taskOutcomeWebhooks } from './webhooks/task-outcomes.js';

export type { AppDeps, BuildOverrides, ParleyApp } from './composition/app-deps.js';

export async function buildApp(config: Config, overrides: BuildOverrides = {}): Promise<ParleyApp> {
  // Refused before anything is opened: roles split across processes need a shared bus.
  const busProblem = overrides.bus ? null : rolesWithoutBusProblem(config);
  if (busProblem) throw new ConfigError([busProblem]);
  const logger = overrides.logger ?? createLogger(config.platform.logLevel);
  const now = overrides.now ?? (() => new Date());
  const database = openDatabase({
    databaseUrl: config.platform.databaseUrl,
    sqlitePath: join(config.platform.dataDir, 'parley.db'),
    pgSchema: overrides.pgSchema,
  });
  await migrate(database);
  // PostgreSQL: changes to keys and billing heard from every process, so their reads can be
  // kept in memory (src/store/change-feed.ts); SQLite's caches read counters in the file instead.
  const changes =
    config.platform.keyCache && config.platform.databaseUrl
      ? new PostgresChangeFeed({
          databaseUrl: config.platform.databaseUrl,
          pgSchema: overrides.pgSchema,
          logger: logger.child({ component: 'store' }),
        })
      : undefined;
  const build = buildString();
  const roles = config.platform.roles;

  // Backends. Redis, when configured, carries pub/sub, rate limits, presence (leased counts:
  // broadcast seats, subtitle audiences) and jobs (BullMQ) across processes; without it jobs
  // live in the database (PARLEY_JOB_QUEUE picks explicitly).
  const redisUrl = config.platform.redisUrl;
  let bus: EventBus = overrides.bus ?? new InProcessBus();
  let rateLimiter: RateLimiter = new InMemoryRateLimiter();
  // The Redis modules (and ioredis) load only when Redis is configured: an embedded start skips them.
  if (redisUrl && !overrides.bus) {
    const [{ RedisBus }, { RedisRateLimiter }] = await Promise.all([import('./bus/redis.js'), import('./platform/redis-rate-limit.js')]);
    const redisBus = new RedisBus(redisUrl, logger.child({ component: 'bus' }));
    await redisBus.ready();
    bus = redisBus;
    rateLimiter = new RedisRateLimiter(redisUrl);
  }
  // Presence is Redis's whenever Redis is configured, even beside an injected bus: the counts
  // must hold across every process that shares the deployment's Redis.
  const presence: Presence = redisUrl ? new (await import('./presence/redis.js')).RedisPresence(redisUrl) : new InMemoryPresence();
  const jobs = await openJobQueue(config, database, logger.child({ component: 'jobs' }), now);
  // Live sessions as event streams: the publisher where a recording runs, subscriptions anywhere (src/stream).
  // Search over the task library (src/search): triggers keep the index; live finals reach it
  // through the session streams where they are published.
  const searchStore = new SearchStore(database);
  const liveSearch = new LiveSearchIndex(searchStore, logger.child({ component: 'search' }));
  const streams = new SessionStreams(bus, logger.child({ component: 'stream' }), liveSearch.observe);
  // Local disk, or an S3-compatible bucket every node shares (PARLEY_S3_BUCKET).
  const blobs = await openBlobStore(config);
  // One metrics registry per app; engines report their latency through it (src/metrics).
  const metrics = new Metrics();
  const engines = (overrides.engines ?? EngineRegistry.fromEngines([])).observed((e) => observedEngine(e, metrics.observeEngine));
  // Audio behind one interface (src/engines/audio/port.ts); ffmpeg's path is known only here.
  const audio = createFfmpegAudio(config.engines.ffmpegPath);
  const summaryTemplates = SummaryTemplateCatalogue.fromSettings(config.summaryTemplates);

  // Modules, each built once with its ports. The order follows the ports: keys (with the
  // webhook URL check) -> webhooks (key targets) -> billing (key policies, credit webhooks) ->
  // tasks (outcome webhooks, import status, the reprocessing queue) -> imports (tasks, webhooks).
  const webhookLogger = logger.child({ component: 'webhooks' });
  const sender = new WebhookSender(config.webhooks, now);
  const { keys, authenticator } = createKeysModule({
    database,
    now,
    cacheLookups: config.platform.keyCache,
    changes,
    verifyWebhookUrl: (url, secret, keyId) => sender.verifyUrl(url, secret, keyId),
  });
  const { webhooks } = createWebhooksModule({ database, jobs, keys, sender, options: config.webhooks, logger: webhookLogger, now });
  // Credit crossings write their webhooks in the crossing's transaction (durable, like task outcomes).
  const { plans, billing, limits, tickets } = createBillingModule({
    config,
    database,
    bus,
    logger,
    now,
    keyPolicies: keys,
    changes,
    notices: creditWebhooks(webhooks),
    onCharged: metrics.observeCharge,
  });
  const importStore = new ImportStore(database, now);
  const reprocessor = reprocessQueue(jobs);
  const tasks = createTaskModule({
    database,
    blobs,
    bus,
    now,
    logger: logger.child({ component: 'tasks' }),
    reprocessor,
    imports: importStatusPort(importStore),
    // A task's outcome writes its webhooks in its own transaction; an import announces its
    // own outcome (recording.* then import.*), later outcomes of its task go to its callback_url;
    // a broadcast's recordings go to the broadcast's callback_url.
    outcomeEffects: taskOutcomeWebhooks(webhooks, firstRouting(importTaskRouting(importStore), broadcastTaskRouting())),
  });
  const imports = createImportsModule({
    config,
    database,
    store: importStore,
    tasks,
    billing,
    limits,
    jobs,
    blobs,
    engines,
    templates: summaryTemplates,
    webhooks,
    audio,
    bus,
    logger,
    now,
  });
  // One broadcasts module for both sides: viewers (api role) and hosts (realtime role) share its seats.
  const broadcasts = createBroadcastsModule(
    broadcastsDeps(config, { database, bus, rateLimiter, plans, summaryTemplates, engines, presence, now, logger }),
  );
  const subtitles = createSubtitlesModule({
    database,
    bus,
    streams,
    rateLimiter,
    presence,
    maxViewers: config.subtitles.maxViewers,
    sourceSeats: { percent: config.subtitles.sourceSeatPercent, min: config.subtitles.sourceSeatsMin },
    recheckSeconds: config.subtitles.recheckSeconds,
    exchangesPerRecording: config.subtitles.exchangesPerRecording,
    getTask: (taskId) => tasks.store.getTask(taskId),
    activePlan: (accountId) => plans.activePlan(accountId),
    now,
  });
  // Voices and cached voice samples (api role); the synthesizers are the ones this process loaded.
  const tts = new TtsService(engines, blobs, logger.child({ component: 'tts' }));
  const deps: AppDeps = {
    config,
    logger,
    database,
    changes,
    bus,
    streams,
    liveSearch,
    jobs,
    rateLimiter,
    engines,
    audio,
    blobs,
    now,
    build,
    plans,
    billing,
    limits,
    tickets,
    keys,
    authenticator,
    webhooks,
    summaryTemplates,
    tasks,
    imports,
    metrics,
    metricsPort: null,
  };

  const http = await createHttpServer({
    logger,
    bodyLimitBytes: config.platform.bodyLimitBytes,
    trustProxy: config.platform.trustProxy,
    corsOrigins: config.platform.corsOrigins,
    version: build,
    requestLog: config.platform.requestLog,
  });
  // Metrics first: their hooks see every route's requests. Served on a listener of its own,
  // or on the main port behind a bearer token, or not at all (docs/metrics.md).
  installHttpMetrics(http, metrics);
  registerStateGauges(metrics, {
    store: new MetricsStore(database),
    jobStats: () => jobs.stats(),
    seatCounts: (id) => broadcasts.seats.counts(id),
  });
  const metricsListener = config.metrics.listen
    ? await startMetricsListener(metrics, { ...config.metrics.listen, token: config.metrics.token })
    : null;
  if (metricsListener) deps.metricsPort = metricsListener.port;
  else if (config.metrics.token) registerMetricsRoute(http, metrics, config.metrics.token);
  registerVersionRoutes(http, { build, roles });
  const auth = overrides.authenticator ?? authenticator;
  // Feature routes, one line per feature (see ARCHITECTURE.md).
  if (roles.includes('api')) {
    registerKeyRoutes(http, { auth, keys, monthlySpent: (keyId) => billing.monthlySpent(keyId) });
    // POST /api/v1/auth/ticket and GET /api/v1/me/plan, /me/credit-lots, /me/usage.
    registerTicketRoutes(http, { auth, tickets });
    registerAccountRoutes(http, { auth, account: new AccountService({ billing, plans, limits, now }) });
    registerSummaryTemplateRoutes(http, { auth, templates: summaryTemplates });
    registerTaskRoutes(http, { auth, tasks: tasks.tasks, speakers: tasks.speakers, blobs, audio, logger });
    registerSearchRoutes(http, { auth, search: new SearchService(searchStore) });
    registerImports(http, { auth, imports, bus, rateLimiter, uploadsPerMinute: config.imports.uploadsPerMinute });
    subtitles.registerApi(http, auth);
    registerBroadcasts(http, broadcasts, auth);
    registerTtsRoutes(http, { auth, tts, rateLimiter });
    registerLanguageRoutes(http, { auth, offer: () => engines.offeredLanguages() });
    registerTtsStreamRoute(http, {
      auth,
      stream: new TtsStreamService({ tasks: tasks.tasks, tts, engines, billing, logger: logger.child({ component: 'tts-stream' }) }),
    });
    registerRetranslateRoutes(http, {
      auth,
      retranslate: new RetranslateService({ tasks: tasks.tasks, engines, billing, logger: logger.child({ component: 'retranslate' }) }),
    });
    registerCorrectionRoutes(http, {
      auth,
      corrections: new CorrectionService({
        tasks: tasks.tasks,
        store: new CorrectionStore(database, now),
        engines,
        billing,
        logger: logger.child({ component: 'corrections' }),
      }),
    });
    const summaries = new SummaryService({
      engines,
      tasks: tasks.tasks,
      store: tasks.store,
      billing,
      templates: summaryTemplates,
      logger: logger.child({ component: 'summaries' }),
    });
    registerSummaryRoutes(http, { auth, summaries });
    registerWebRoutes(http);
    registerAsyncApiRoutes(http, asyncApiDocument());
  }

  if (roles.includes('realtime')) {
    const backends = {
      logger,
      database,
      now,
      bus,
      streams,
      engines,
      blobs,
      tasks: tasks.tasks,
      reprocessor,
      billing,
      limits,
      tickets,
      keys,
    };
    registerRealtimeRole(http, config, auth, { ...backends, authenticator, summaryTemplates, audio }, broadcasts.hosting, subtitles);
  }

  // Worker role: webhook deliveries (and the outbox repair sweep), import and reprocessing jobs.
  let stopWebhookRepair: () => void = () => {};
  if (roles.includes('worker')) {
    stopWebhookRepair = await webhooks.startWorker();
    startImportWorker(imports, jobs, config.imports);
  }

  // Any api or worker process fails imports no worker started in time.
  const stopImportSweep = roles.some((r) => r === 'api' || r === 'worker')
    ? startTimeoutSweep(imports, { timeoutMs: config.imports.startTimeoutMs, now, logger })
    : () => {};

  let closed = false;
  return {
    http,
    deps,
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      await metricsListener?.close();
      stopImportSweep();
      stopWebhookRepair();
      await jobs.close(config.platform.shutdownGraceMs);
      if (!overrides.bus) await bus.close(); // an injected bus belongs to whoever shares it
      await (rateLimiter as { close?: () => Promise<void> }).close?.();
      await broadcasts.close();
      await presence.close();
      await engines.close();
      blobs.close?.();
      await changes?.close();
      await database.close();
    },
  };
}
