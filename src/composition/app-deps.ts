/** What `buildApp` (src/app.ts) returns and accepts. */
import type { Logger } from 'pino';
import type { BillingModule } from '../billing/module.js';
import type { EventBus } from '../bus/types.js';
import type { Config } from '../config.js';
import type { AudioTools } from '../engines/audio/port.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { ImportsModule } from '../imports/module.js';
import type { JobQueue } from '../jobs/types.js';
import type { KeysModule } from '../keys/module.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { LiveSearchIndex } from '../search/live-index.js';
import type { BlobStore } from '../storage/types.js';
import type { PostgresChangeFeed } from '../store/change-feed.js';
import type { Database } from '../store/database.js';
import type { SessionStreams } from '../stream/session-streams.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import type { TaskModule } from '../tasks/module.js';
import type { WebhooksModule } from '../webhooks/module.js';

/**
 * What the app built, for main.ts, the admin CLI and tests. Features never see this object:
 * each gets the few ports it needs in its constructor (see buildApp).
 */
export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  /** PostgreSQL with PARLEY_KEY_CACHE: changes to keys and billing heard from every process. */
  changes?: PostgresChangeFeed;
  bus: EventBus;
  /** Live sessions as event streams: the publisher where a recording runs, subscriptions anywhere (src/stream). */
  streams: SessionStreams;
  /** Live finals into the search index (src/search); `idle()` waits for the writes queued so far. */
  liveSearch: LiveSearchIndex;
  /** Durable jobs; handlers are registered only in processes with the worker role. */
  jobs: JobQueue;
  rateLimiter: RateLimiter;
  engines: EngineRegistry;
  /** Decoding, measuring and encoding audio (src/engines/audio/port.ts; ffmpeg today). */
  audio: AudioTools;
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
  /** Task records: the store (their only writer), the task service and speaker editing (src/tasks). */
  tasks: TaskModule;
  /** Imports: store, service, job pipeline and the reprocessing job (src/imports). */
  imports: ImportsModule;
  /** Prometheus metrics of this process (src/metrics); served per PARLEY_METRICS_*. */
  metrics: Metrics;
  /** The port of the separate metrics listener (PARLEY_METRICS_LISTEN), when there is one. */
  metricsPort: number | null;
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
