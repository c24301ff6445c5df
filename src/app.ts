/**
 * The composition root: reads nothing from the environment itself (it gets a Config), opens
 * the backends configuration selects (SQLite or PostgreSQL; in-process or Redis bus and
 * jobs), builds the engine registry, and registers each feature's routes for the roles this
 * process runs. `src/main.ts` starts it; tests call `buildApp` directly.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type BillingModule, createBillingModule, registerBillingRoutes } from './billing/module.js';
import { createBroadcastsModule, registerBroadcasts } from './broadcasts/module.js';
import { InProcessBus } from './bus/in-process.js';
import { RedisBus } from './bus/redis.js';
import type { EventBus } from './bus/types.js';
import { type Config, ConfigError, rolesWithoutBusProblem } from './config.js';
import { EngineRegistry } from './engines/registry.js';
import { glossaryLimits } from './glossary/limits.js';
import { registerGlossaryRoutes } from './glossary/routes.js';
import { importsOf, registerImports, startImportWorker, startTimeoutSweep } from './imports/module.js';
import { StoreJobQueue } from './jobs/store-queue.js';
import type { JobQueue } from './jobs/types.js';
import { createKeysModule, type KeysModule } from './keys/module.js';
import { registerKeyRoutes } from './keys/routes.js';
import type { Authenticator } from './platform/auth/types.js';
import { createHttpServer } from './platform/http/server.js';
import type { HttpApp } from './platform/http/types.js';
import { createLogger } from './platform/logging.js';
import { InMemoryRateLimiter, type RateLimiter } from './platform/rate-limit.js';
import { RedisRateLimiter } from './platform/redis-rate-limit.js';
import { realtimePortsOf } from './realtime/ports.js';
import { registerRealtime } from './realtime/server.js';
import { LocalDiskBlobStore } from './storage/local-disk.js';
import type { BlobStore } from './storage/types.js';
import { type Database, openDatabase } from './store/database.js';
import { migrate } from './store/migrate.js';
import { SessionStreams } from './stream/session-streams.js';
import { createSubtitlesModule } from './subtitles/module.js';
import { SummaryTemplateCatalogue } from './summary-templates/catalogue.js';
import { registerSummaryTemplateRoutes } from './summary-templates/routes.js';
import { tasksOf } from './tasks/module.js';
import { registerTaskRoutes } from './tasks/routes.js';
import { registerVersionRoutes } from './version/routes.js';
import { registerWebRoutes } from './web/routes.js';
import { createWebhooksModule, subscribeWebhookEvents, type WebhooksModule } from './webhooks/module.js';

/** Everything a feature may depend on. Features get what they need from here, nothing global. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  bus: EventBus;
  /** Live sessions as event streams: the publisher where a recording runs, subscriptions anywhere (src/stream). */
  streams: SessionStreams;
  /** Durable jobs; handlers are registered only in processes with the worker role. */
  jobs: JobQueue;
  rateLimiter: RateLimiter;
  engines: EngineRegistry;
  /** Audio and other large files (local disk under PARLEY_DATA_DIR/blobs by default). */
  blobs: BlobStore;
  /** Injectable clock (tests move time; production uses the system clock). */
  now: () => Date;
  build: string;
  /** Billing, plans, the limits calculator and tickets (src/billing/module.ts). */
  plans: BillingModule['plans'];
  billing: BillingModule['billing'];
  limits: BillingModule['limits'];
  tickets: BillingModule['tickets'];
  /** Accounts and API keys; the Authenticator every route uses (src/keys). */
  keys: KeysModule['keys'];
  authenticator: KeysModule['authenticator'];
  /** Signed webhook delivery (outbox + durable jobs): `notify(event, {...})` (src/webhooks). */
  webhooks: WebhooksModule['webhooks'];
  /** Built-in and operator summary templates; `getEnabledTemplate(slug)` (src/summary-templates). */
  summaryTemplates: SummaryTemplateCatalogue;
}

export interface ParleyApp {
  http: HttpApp;
  deps: AppDeps;
  /** Stops accepting work, finishes in-flight requests, closes backends. */
  close(): Promise<void>;
}

export interface BuildOverrides {
  logger?: Logger;
  engines?: EngineRegistry;
  now?: () => Date;
  /** PostgreSQL schema (tests isolate themselves). */
  pgSchema?: string;
  /** Replaces the keys feature's Authenticator on every route (feature tests with fixed principals). */
  authenticator?: Authenticator;
  /**
   * The bus this process shares with the processes running its other roles, instead of the
   * one REDIS_URL selects (tests run such "processes" as apps in one OS process).
   */
  bus?: EventBus;
}

export async function buildApp(config: Config, overrides: BuildOverrides = {}): Promise<ParleyApp> {
  // Refused before anything is opened: roles split across processes need a shared bus.
  const busProblem = overrides.bus ? null : rolesWithoutBusProblem(config);
  if (busProblem) throw new ConfigError([busProblem]);
  const logger = overrides.logger ?? createLogger(config.platform.logLevel);
  const database = openDatabase({
    databaseUrl: config.platform.databaseUrl,
    sqlitePath: join(config.platform.dataDir, 'parley.db'),
    pgSchema: overrides.pgSchema,
  });
  await migrate(database);
  const build = buildString();
  // Redis, when configured, carries pub/sub and rate limits across processes; jobs stay in
  // the database (PostgreSQL's SKIP LOCKED lets every worker process share them).
  const redisUrl = config.platform.redisUrl;
  let bus: EventBus = overrides.bus ?? new InProcessBus();
  let rateLimiter: RateLimiter = new InMemoryRateLimiter();
  if (redisUrl && !overrides.bus) {
    const redisBus = new RedisBus(redisUrl, logger.child({ component: 'bus' }));
    await redisBus.ready();
    bus = redisBus;
    rateLimiter = new RedisRateLimiter(redisUrl);
  }
  const base: Omit<AppDeps, 'webhooks'> = {
    config,
    logger,
    database,
    bus,
    streams: new SessionStreams(bus, logger.child({ component: 'stream' })),
    jobs: new StoreJobQueue(database, {
      logger: logger.child({ component: 'jobs' }),
      now: overrides.now,
      leaseMs: config.platform.jobLeaseMs,
    }),
    rateLimiter,
    engines: overrides.engines ?? EngineRegistry.fromEngines([]),
    blobs: new LocalDiskBlobStore(join(config.platform.dataDir, 'blobs')),
    now: overrides.now ?? (() => new Date()),
    build,
    ...createBillingModule({ config, database, bus, logger, now: overrides.now }),
    ...createKeysModule({ database, now: overrides.now ?? (() => new Date()) }),
    summaryTemplates: SummaryTemplateCatalogue.fromSettings(config.summaryTemplates),
  };
  const deps: AppDeps = {
    ...base,
    ...createWebhooksModule({ ...base, options: config.webhooks, logger: logger.child({ component: 'webhooks' }) }),
  };
  deps.billing.useKeyPolicies(deps.keys);
  deps.keys.verifyWebhookUrl = (url, secret, keyId) => deps.webhooks.verifyUrl(url, secret, keyId);

  const http = await createHttpServer({
    logger,
    bodyLimitBytes: config.platform.bodyLimitBytes,
    trustProxy: config.platform.trustProxy,
    corsOrigins: config.platform.corsOrigins,
    version: build,
  });
  const roles = config.platform.roles;
  const subtitles = createSubtitlesModule({
    database,
    bus,
    streams: deps.streams,
    rateLimiter,
    redisUrl,
    maxViewers: config.subtitles.maxViewers,
    recheckSeconds: config.subtitles.recheckSeconds,
    getTask: (taskId) => tasksOf(deps).store.getTask(taskId),
    activePlan: (accountId) => deps.plans.activePlan(accountId),
    now: deps.now,
  });
  // One broadcasts module for both sides: viewers (api role) and hosts (realtime role) share its seats.
  const broadcasts = broadcastsOf(deps);
  registerVersionRoutes(http, { build, roles });
  // Feature routes, one line per feature (see ARCHITECTURE.md).
  if (roles.includes('api')) {
    const auth = overrides.authenticator ?? deps.authenticator;
    registerKeyRoutes(http, { auth, keys: deps.keys, monthlySpent: (keyId) => deps.billing.monthlySpent(keyId) });
    registerBillingRoutes(http, deps, auth);
    registerSummaryTemplateRoutes(http, { auth, templates: deps.summaryTemplates });
    const tasks = tasksOf(deps);
    registerTaskRoutes(http, { auth, tasks: tasks.tasks, speakers: tasks.speakers, blobs: deps.blobs, logger });
    registerImports(deps, http, auth);
    subtitles.registerApi(http, auth);
    registerBroadcasts(http, broadcasts, auth);
    registerWebRoutes(http);
  }

  if (roles.includes('realtime')) {
    const rt = config.realtime;
    registerGlossaryRoutes(http, { auth: overrides.authenticator ?? deps.authenticator, limits: glossaryLimits(config) });
    registerRealtime(http, {
      ports: { ...realtimePortsOf(deps), broadcasts: broadcasts.host },
      logger,
      now: deps.now,
      limits: {
        maxFrameBytes: rt.maxFrameBytes,
        preStartMs: rt.preStartSeconds * 1000,
        pingIntervalMs: rt.pingSeconds * 1000,
        silenceWarningMs: rt.silenceWarningSeconds * 1000,
        disconnectGraceMs: rt.disconnectGraceSeconds * 1000,
        drainMs: rt.drainSeconds * 1000,
      },
      trustProxy: config.platform.trustProxy,
    });
    subtitles.registerRealtime(http);
  }

  // Worker role: webhook deliveries are sent here, and bus events become notifications once.
  let unsubscribeWebhooks: () => void = () => {};
  if (roles.includes('worker')) {
    await deps.webhooks.startWorker();
    startImportWorker(deps);
    unsubscribeWebhooks = await subscribeWebhookEvents(bus, deps.webhooks, logger.child({ component: 'webhooks' }));
  }

  // Imports link themselves to tasks and webhooks in every process; any api or worker process
  // fails imports no worker started in time.
  importsOf(deps);
  const stopImportSweep = roles.some((r) => r === 'api' || r === 'worker') ? startTimeoutSweep(deps) : () => {};

  let closed = false;
  return {
    http,
    deps,
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      stopImportSweep();
      unsubscribeWebhooks();
      await deps.jobs.close(config.platform.shutdownGraceMs);
      if (!overrides.bus) await deps.bus.close(); // an injected bus belongs to whoever shares it
      await (deps.rateLimiter as { close?: () => Promise<void> }).close?.();
      await broadcasts.close();
      await subtitles.close();
      await deps.engines.close();
      await database.close();
    },
  };
}

/** The broadcasts feature over this app's backends (src/broadcasts/module.ts). */
function broadcastsOf(deps: AppDeps) {
  return createBroadcastsModule({
    database: deps.database,
    bus: deps.bus,
    rateLimiter: deps.rateLimiter,
    activePlan: (accountId) => deps.plans.activePlan(accountId),
    templateExists: (slug) => deps.summaryTemplates.getEnabledTemplate(slug) !== null,
    voices: (language) => {
      const tts = deps.engines.select({ kind: 'tts', language });
      if (!tts.ok) return null;
      return tts.engine.voices(language).map((v) => ({ voice_name: v.voice_name, display_name: v.display_name, gender: v.gender }));
    },
    translate: async (text, from, to) => {
      const t = deps.engines.select({ kind: 'translator', from, to });
      return t.ok ? t.engine.translate(text, { from, to }) : null;
    },
    viewerLimit: deps.config.broadcasts.viewerLimit,
    hostWaitMs: deps.config.broadcasts.hostWaitSeconds * 1000,
    redisUrl: deps.config.platform.redisUrl,
    now: deps.now,
    logger: deps.logger.child({ component: 'broadcasts' }),
  });
}

/** "<package version>+<commit>" (commit from PARLEY_BUILD_COMMIT at build time, else git). */
function buildString(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  let commit = process.env.PARLEY_BUILD_COMMIT ?? '';
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        cwd: new URL('..', import.meta.url),
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    } catch {
      commit = 'unknown';
    }
  }
  return `${pkg.version}+${commit}`;
}
