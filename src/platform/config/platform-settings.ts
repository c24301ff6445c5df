import { REQUEST_LOG_MODES } from '../http/request-log.js';
import { defineSection, type SectionValues, SettingError, settings } from './settings.js';

export const ROLES = ['api', 'realtime', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export const platformSettings = defineSection({
  port: settings.int('PORT', 'HTTP port for REST, SSE and WebSocket.', 8080, { min: 0, max: 65535 }),
  host: settings.string('HOST', 'Address to listen on.', '0.0.0.0'),
  dataDir: settings.string(
    'PARLEY_DATA_DIR',
    'Data folder of the embedded default (SQLite database, audio, models). Used by the service and the admin CLI.',
    './data',
  ),
  databaseUrl: settings.url('DATABASE_URL', 'PostgreSQL connection string (postgres://...). Unset: SQLite in PARLEY_DATA_DIR.', [
    'postgres:',
    'postgresql:',
  ]),
  redisUrl: settings.url(
    'REDIS_URL',
    'Redis connection string (redis://...): pub/sub, rate limits and jobs (BullMQ) shared by every process. Unset: in-process bus and limits, jobs in the database.',
    ['redis:', 'rediss:'],
  ),
  roles: settings.custom(
    'PARLEY_ROLES',
    'Comma-separated roles this process runs: api (REST, SSE), realtime (WebSocket), worker (jobs).',
    [...ROLES] as Role[],
    (raw) => {
      const list = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = list.filter((r) => !(ROLES as readonly string[]).includes(r));
      if (bad.length || list.length === 0) throw new SettingError(`PARLEY_ROLES must list roles from ${ROLES.join(', ')}, got "${raw}"`);
      return [...new Set(list)] as Role[];
    },
    ROLES.join(','),
  ),
  logLevel: settings.oneOf('LOG_LEVEL', 'Log level.', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  requestLog: settings.oneOf(
    'PARLEY_REQUEST_LOG',
    'Which HTTP requests get their one info log line (id, method, URL without secrets, status, ms): all, errors (status >= 400) or off.',
    REQUEST_LOG_MODES,
    'all',
  ),
  keyCache: settings.bool(
    'PARLEY_KEY_CACHE',
    "Keep API key lookups and each account's plan, balances and plan-limit minute counts in memory, checked on every request against versions that any change to a key, an account, a plan, a credit lot or a charge moves, so a change still takes effect on the next request. SQLite: counters in the file. PostgreSQL: notices every writer's triggers send (LISTEN/NOTIFY on one extra connection per process; a change by another process applies once its notice arrives, under a millisecond on one host; while that connection is down, reads go to the database). Off: database reads on every request.",
    true,
  ),
  trustProxy: settings.bool('PARLEY_TRUST_PROXY', 'Believe X-Forwarded-For for the client address (only behind your own proxy).', false),
  corsOrigins: settings.list(
    'PARLEY_CORS_ORIGINS',
    'Origins allowed to call authenticated routes from a browser (comma-separated; "*" for any). Viewer and public routes allow any origin.',
    [],
  ),
  bodyLimitBytes: settings.int('PARLEY_BODY_LIMIT_BYTES', 'Largest JSON request body accepted.', 1024 * 1024, { min: 1024 }),
  shutdownGraceMs: settings.int('PARLEY_SHUTDOWN_GRACE_MS', 'How long shutdown waits for in-flight requests.', 10000, { min: 0 }),
  mallocArenas: settings.int(
    'PARLEY_MALLOC_ARENAS',
    "glibc malloc arenas of the process (native engines allocate on many threads; glibc's default of 8 per core kept ~7 MB more per live session, measured). 0: one per core.",
    0,
    { min: 0, max: 1024 },
  ),
  jobLeaseMs: settings.int(
    'PARLEY_JOB_LEASE_MS',
    'Lease of a running job; a job whose worker died is taken over after it expires (renewed every third of it while running).',
    60_000,
    { min: 300 },
  ),
  jobQueue: settings.oneOf(
    'PARLEY_JOB_QUEUE',
    'Where durable jobs live: redis (BullMQ; needs REDIS_URL), database (the jobs table), or auto (redis when REDIS_URL is set).',
    ['auto', 'redis', 'database'] as const,
    'auto',
  ),
  jobQueuePrefix: settings.string(
    'PARLEY_JOB_QUEUE_PREFIX',
    'Redis key prefix of the job queues; every process of one deployment uses the same one.',
    'parley:jobs',
  ),
  starterCredit: settings.number(
    'PARLEY_STARTER_CREDIT',
    'Points granted to the account created on the first start with an empty database (its key is printed once).',
    100,
    { min: 0 },
  ),
  timeZone: settings.custom('PARLEY_TIME_ZONE', 'Time zone of the plan day boundary (daily limits), IANA name.', 'UTC', (raw) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: raw });
    } catch {
      throw new SettingError(`PARLEY_TIME_ZONE must be an IANA time zone, got "${raw}"`);
    }
    return raw;
  }),
});

/** The platform section's values (mechanisms take this, not the whole configuration). */
export type PlatformConfig = SectionValues<typeof platformSettings>;
