/**
 * Jobs on Redis through BullMQ, behind the same JobQueue as the embedded database queue
 * (src/jobs/store-queue.ts); chosen when REDIS_URL is set. One BullMQ queue per job name, so a
 * worker takes only the names it registered. The semantics are the database queue's:
 * - leases: BullMQ's job lock (`lockDuration` = PARLEY_JOB_LEASE_MS), renewed while the handler
 *   runs; a worker that dies stops renewing and the stalled-job check hands the job to another
 *   worker (at-least-once; a crash counts as an attempt, `maxStalledCount` = the attempts);
 * - retries: the job's attempts with the worker's backoff, or the error's Retry-After
 *   (nextDelay, src/platform/retry.ts); PermanentJobError or `retryable: false` fails at once;
 * - dedupe: BullMQ deduplication by `dedupeKey` while the first job is waiting or running;
 * - `within` (enqueue inside a database transaction): Redis cannot join the transaction, so the
 *   job is written to the `jobs` table as an outbox row (status `outbox`) in that transaction,
 *   and a relay moves committed rows to BullMQ with the row id as job id (a relay repeated after
 *   a crash adds nothing twice), then deletes them;
 * - fairness (`fairKey`): BullMQ has no fair groups (that is BullMQ Pro), so a job gets a
 *   priority equal to its rank among its group's waiting jobs (a counter per group in Redis,
 *   up at enqueue, down when a worker takes the job): the first waiting job of every account
 *   ranks 1, the second 2, ... and lower ranks run first. An account's tenth import waits
 *   behind every other account's first. The counter expires a day after its last change, so
 *   a count left high by a crash heals.
 */
import { randomUUID } from 'node:crypto';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Backoff, nextDelay } from '../platform/retry.js';
import type { Database } from '../store/database.js';
import { DEFAULT_ATTEMPTS, defaultBackoff, newJobRow } from './store-queue.js';
import type { JobContext, JobHandler, JobOptions, JobQueue, JobQueueStats, JobState, WorkOptions } from './types.js';
import { PermanentJobError } from './types.js';

export interface BullQueueOptions {
  logger: Logger;
  /** Key prefix in Redis (tests isolate themselves with their own). */
  prefix?: string;
  /** Lease (lock) length; renewed every half of it while a handler runs. */
  leaseMs?: number;
  /** How often the outbox relay looks for committed `within` jobs. */
  pollMs?: number;
}

const OUTBOX = 'outbox';
/** Key of the fairness group in a wrapped job's data. */
const FAIR = '__fairKey';

export class BullJobQueue implements JobQueue {
  private readonly connection: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private readonly backoffs = new Map<string, (attempt: number) => number>();
  private readonly controllers = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly prefix: string;
  private readonly leaseMs: number;
  private readonly relayTimer: NodeJS.Timeout;
  private relaying = false;
  private closing = false;

  constructor(
    redisUrl: string,
    private readonly database: Database,
    private readonly options: BullQueueOptions,
  ) {
    // BullMQ needs maxRetriesPerRequest null: its blocking commands wait as long as they must.
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    this.connection.on('error', (err) => options.logger.warn({ err }, 'job queue: Redis connection error'));
    this.prefix = options.prefix ?? 'parley:jobs';
    this.leaseMs = options.leaseMs ?? 60_000;
    this.relayTimer = setInterval(() => void this.relay(), options.pollMs ?? 500);
    this.relayTimer.unref();
  }

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      q.on('error', (err) => this.options.logger.warn({ err, job: name }, 'job queue: queue error'));
      this.queues.set(name, q);
    }
    return q;
  }

  /** The queues this process has opened (the names it enqueues or works). */
  async stats(): Promise<JobQueueStats[]> {
    return Promise.all(
      [...this.queues.entries()].map(async ([name, q]) => {
        const counts = await q.getJobCounts('wait', 'prioritized', 'active', 'delayed');
        const [oldest] = await q.getJobs(['wait', 'prioritized'], 0, 0, true);
        return {
          name,
          waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
          running: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          oldestWaitingSeconds: oldest ? Math.max(0, (Date.now() - oldest.timestamp - (oldest.opts.delay ?? 0)) / 1000) : 0,
        };
      }),
    );
  }

  async enqueue<P>(name: string, payload: P, options: JobOptions = {}): Promise<string> {
    if (options.within) {
      const id = randomUUID();
      await options.within
        .insertInto('jobs')
        .values(newJobRow({ id, name, payload, status: OUTBOX, options, now: new Date() }))
        .execute();
      return id;
    }
    return this.add(randomUUID(), name, payload ?? null, options);
  }

  private fairCounter(name: string, fairKey: string): string {
    return `${this.prefix}:${name}:fair:${fairKey}`;
  }

  private async add(id: string, name: string, payload: unknown, options: Omit<JobOptions, 'within'>): Promise<string> {
    let priority: number | undefined;
    if (options.fairKey) {
      const counter = this.fairCounter(name, options.fairKey);
      const [[, rank]] = (await this.connection
        .multi()
        .incr(counter)
        .expire(counter, 24 * 3600)
        .exec()) as [[Error | null, number]];
      priority = Math.min(Math.max(1, rank), 2_097_152); // BullMQ's largest priority
    }
    // The group travels with the job (BullMQ keeps no options of its own), unwrapped for the handler.
    const data = options.fairKey ? { [FAIR]: options.fairKey, payload } : payload;
    const job = await this.queue(name).add(name, data, {
      priority,
      jobId: id,
      attempts: options.maxAttempts ?? DEFAULT_ATTEMPTS,
      delay: options.runAt ? Math.max(0, options.runAt.getTime() - Date.now()) : undefined,
      backoff: { type: 'parley' },
      deduplication: options.dedupeKey ? { id: options.dedupeKey } : undefined,
      // Finished jobs are kept a while for status checks, then Redis forgets them.
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    return job.id ?? id;
  }

  /** Moves committed outbox rows to BullMQ. Any process may relay; SKIP LOCKED (PostgreSQL) keeps them apart. */
  private async relay(): Promise<void> {
    if (this.relaying || this.closing) return;
    this.relaying = true;
    try {
      const { db, dialect } = this.database;
      for (;;) {
        const moved = await db.transaction().execute(async (tx) => {
          let q = tx.selectFrom('jobs').selectAll().where('status', '=', OUTBOX).orderBy('created_at').limit(50);
          if (dialect === 'postgres') q = q.forUpdate().skipLocked();
          const rows = await q.execute();
          for (const r of rows) {
            await this.add(r.id, r.name, JSON.parse(r.payload), {
              fairKey: r.fair_key ?? undefined,
              maxAttempts: r.max_attempts,
              runAt: new Date(r.run_at),
              dedupeKey: r.dedupe_key ?? undefined,
            });
            await tx.deleteFrom('jobs').where('id', '=', r.id).execute();
          }
          return rows.length;
        });
        if (moved < 50) break;
      }
    } catch (err) {
      this.options.logger.error({ err }, 'job queue: relaying outbox jobs to Redis failed');
    } finally {
      this.relaying = false;
    }
  }

  work<P>(name: string, handler: JobHandler<P>, options: WorkOptions = {}): void {
    if (options.backoffMs) this.backoffs.set(name, options.backoffMs);
    this.queue(name); // known to get()
    const worker = new Worker(
      name,
      async (job: Job) => {
        // Its group has one job fewer waiting (first attempt only: a retry was counted out).
        const wrapped = typeof job.data === 'object' && job.data !== null && FAIR in job.data;
        const fairKey = wrapped ? (job.data[FAIR] as string) : undefined;
        const payload = (wrapped ? job.data.payload : job.data) as P;
        if (fairKey && job.attemptsStarted <= 1) await this.connection.decr(this.fairCounter(name, fairKey)).catch(() => {});
        const controller = new AbortController();
        this.controllers.add(controller);
        const context: JobContext = {
          id: job.id as string,
          name: job.name,
          attempt: job.attemptsStarted,
          maxAttempts: job.opts.attempts ?? DEFAULT_ATTEMPTS,
          signal: controller.signal,
        };
        const run = handler(payload, context);
        this.inFlight.add(run);
        try {
          await run;
        } catch (err) {
          const permanent =
            err instanceof PermanentJobError ||
            (typeof err === 'object' && err !== null && (err as { retryable?: unknown }).retryable === false);
          if (permanent) throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
          throw err;
        } finally {
          this.inFlight.delete(run);
          this.controllers.delete(controller);
        }
      },
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: this.leaseMs,
        stalledInterval: Math.min(this.leaseMs, 30_000),
        maxStalledCount: DEFAULT_ATTEMPTS,
        settings: {
          backoffStrategy: (attemptsMade: number, _type?: string, err?: Error, job?: { name: string }) =>
            nextDelay((this.backoffs.get(job?.name ?? name) ?? defaultBackoff) as Backoff, attemptsMade, err),
        },
      },
    );
    worker.on('error', (err) => this.options.logger.warn({ err, job: name }, 'job queue: worker error'));
    worker.on('failed', (job, err) => {
      if (job?.finishedOn)
        this.options.logger.warn({ job_id: job.id, job: name, attempt: job.attemptsStarted, err }, 'job failed for good');
    });
    this.workers.set(name, worker);
  }

  /** A job's state in the database queue's terms (pending, running, done, failed), for status checks and tests. */
  async get(id: string): Promise<JobState | null> {
    for (const q of this.queues.values()) {
      const job = await q.getJob(id);
      if (!job) continue;
      const state = await job.getState();
      const status = state === 'completed' ? 'done' : state === 'failed' ? 'failed' : state === 'active' ? 'running' : 'pending';
      // A delayed job's due time is its score in the delayed set (ms * 4096 + a counter).
      let runAt = job.timestamp + (job.delay ?? 0);
      if (state === 'delayed') {
        const score = await this.connection.zscore(`${this.prefix}:${q.name}:delayed`, id);
        if (score) runAt = Math.floor(Number(score) / 4096);
      }
      return {
        id,
        name: job.name,
        status,
        attempts: job.attemptsStarted,
        max_attempts: job.opts.attempts ?? DEFAULT_ATTEMPTS,
        run_at: new Date(runAt).toISOString(),
        last_error: job.failedReason || null,
      };
    }
    const row = await this.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? { ...row, status: 'pending' } : null;
  }

  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    clearInterval(this.relayTimer);
    // Take no new jobs, give running handlers the grace period, then close.
    await Promise.all([...this.workers.values()].map((w) => w.pause(true)));
    const all = Promise.allSettled([...this.inFlight]);
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
    const late = (await Promise.race([all, timeout])) === 'timeout';
    // Handlers still running are told to stop; with a forced close their locks are no longer
    // renewed, so they lapse and another worker takes the jobs up again.
    if (late) for (const c of this.controllers) c.abort();
    await Promise.all([...this.workers.values()].map((w) => w.close(late)));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
