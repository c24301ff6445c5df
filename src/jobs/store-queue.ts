/**
 * The embedded durable job queue: jobs are rows in the database (SQLite or PostgreSQL), so
 * an enqueued job survives a restart. A worker claims a job with a lease (`locked_until`)
 * that it renews while the handler runs; a process that dies leaves its lease to expire
 * and the job is claimed again (at-least-once). Claiming is one atomic UPDATE: on
 * PostgreSQL `FOR UPDATE SKIP LOCKED` lets several worker processes share the table; on
 * SQLite the single writer serializes claims.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Backoff, exponentialBackoff, nextDelay } from '../platform/retry.js';
import type { Database } from '../store/database.js';
import type { JobContext, JobHandler, JobOptions, JobQueue, JobQueueStats, WorkOptions } from './types.js';
import { PermanentJobError } from './types.js';

export interface StoreQueueOptions {
  logger: Logger;
  now?: () => Date;
  /** How often idle workers look for due jobs. */
  pollMs?: number;
  /** Lease length; renewed every third of it while a handler runs. */
  leaseMs?: number;
}

export const DEFAULT_ATTEMPTS = 5;

/** A new row of the jobs table (the database queue's jobs, and the Redis queue's outbox). */
export function newJobRow(job: {
  id: string;
  name: string;
  payload: unknown;
  status: string;
  options: JobOptions;
  now: Date;
  /** The enqueueing queue's next sequence number (StoreJobQueue.nextSeq); none: the run_at tie stays. */
  seq?: number;
}) {
  const now = job.now.toISOString();
  return {
    id: job.id,
    name: job.name,
    payload: JSON.stringify(job.payload ?? null),
    status: job.status,
    max_attempts: job.options.maxAttempts ?? DEFAULT_ATTEMPTS,
    run_at: (job.options.runAt ?? job.now).toISOString(),
    locked_until: null,
    locked_by: null,
    last_error: null,
    dedupe_key: job.options.dedupeKey ?? null,
    fair_key: job.options.fairKey ?? null,
    enqueue_seq: job.seq ?? null,
    created_at: now,
    updated_at: now,
  };
}

/** The shared policy (src/platform/retry.ts): full jitter under 1 s, 2 s, 4 s, ... capped at 5 min. */
export const defaultBackoff: Backoff = exponentialBackoff({ baseMs: 1000, maxMs: 5 * 60_000 });

interface Worker {
  name: string;
  handler: JobHandler<unknown>;
  concurrency: number;
  running: number;
}

export class StoreJobQueue implements JobQueue {
  private readonly workers = new Map<string, Worker>();
  private readonly backoffs = new Map<string, (attempt: number) => number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private readonly renewals = new Set<NodeJS.Timeout>();
  private readonly workerId = randomUUID();
  /** The last enqueue_seq this queue gave. */
  private lastSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private ticking = false;
  private readonly now: () => Date;
  private readonly pollMs: number;
  private readonly leaseMs: number;

  constructor(
    private readonly database: Database,
    private readonly options: StoreQueueOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.pollMs = options.pollMs ?? 500;
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  async enqueue<P>(name: string, payload: P, options: JobOptions = {}): Promise<string> {
    const db = options.within ?? this.database.db;
    if (options.dedupeKey) {
      const existing = await db
        .selectFrom('jobs')
        .select('id')
        .where('dedupe_key', '=', options.dedupeKey)
        .where('status', 'in', ['pending', 'running'])
        .executeTakeFirst();
      if (existing) return existing.id;
    }
    const id = randomUUID();
    const now = this.now();
    await db
      .insertInto('jobs')
      .values(newJobRow({ id, name, payload, status: 'pending', options, now, seq: this.nextSeq(now) }))
      .execute();
    if (this.workers.has(name)) queueMicrotask(() => void this.tick());
    return id;
  }

  work<P>(name: string, handler: JobHandler<P>, options: WorkOptions = {}): void {
    if (options.backoffMs) this.backoffs.set(name, options.backoffMs);
    this.workers.set(name, { name, handler: handler as JobHandler<unknown>, concurrency: options.concurrency ?? 1, running: 0 });
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.pollMs);
      this.timer.unref();
    }
    queueMicrotask(() => void this.tick());
  }

  /** Claims and starts due jobs until every worker is at its concurrency. */
  private async tick(): Promise<void> {
    if (this.closing || this.ticking) return;
    this.ticking = true;
    try {
      for (const w of this.workers.values()) {
        while (!this.closing && w.running < w.concurrency) {
          const job = await this.claim(w.name);
          if (!job) break;
          w.running++;
          const p = this.run(w, job).finally(() => {
            w.running--;
            this.inFlight.delete(p);
            queueMicrotask(() => void this.tick());
          });
          this.inFlight.add(p);
        }
      }
    } catch (err) {
      this.options.logger.error({ err }, 'job queue: claiming failed');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Microseconds of the job's enqueue time (the same reading as its run_at), moved on by one
   * where the clock has not moved: increasing within this process, and across processes as
   * close to enqueue order as their clocks are.
   */
  private nextSeq(now: Date): number {
    this.lastSeq = Math.max(now.getTime() * 1000, this.lastSeq + 1);
    return this.lastSeq;
  }

  private async claim(name: string) {
    const { db, dialect } = this.database;
    const now = this.now();
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.leaseMs).toISOString();
    // Due pending jobs, or running jobs whose lease expired (their worker died). Fair order:
    // the job whose group (fair_key) was served least recently first (a group never served,
    // or a job without a group, counts as never served), then by due time. So an account with
    // ten waiting imports and one with one take turns: each claim moves its group to the back.
    // Inside a group, first in, first out: jobs enqueued in the same millisecond share a run_at,
    // and enqueue_seq says which came first.
    const lastServed = sql<string>`coalesce((select max(served.claimed_at) from jobs as served
      where served.name = jobs.name and served.fair_key = jobs.fair_key), '')`;
    const due = db
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', name)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', nowIso)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', nowIso)]),
        ]),
      )
      .orderBy(lastServed)
      .orderBy('run_at')
      .orderBy('enqueue_seq')
      .limit(1);
    const candidate = dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
    const row = await db
      .updateTable('jobs')
      .set({
        status: 'running',
        locked_until: lease,
        locked_by: this.workerId,
        attempts: sql`attempts + 1`,
        claimed_at: nowIso,
        updated_at: nowIso,
      })
      .where('id', '=', (eb) => eb.selectFrom(candidate.as('c')).select('c.id'))
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  }

  private async run(w: Worker, job: { id: string; name: string; payload: string; attempts: number; max_attempts: number }): Promise<void> {
    const { db } = this.database;
    const controller = new AbortController();
    this.controllers.add(controller);
    const renew = setInterval(() => {
      const until = new Date(this.now().getTime() + this.leaseMs).toISOString();
      db.updateTable('jobs')
        .set({ locked_until: until })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .execute()
        .catch((err: unknown) => this.options.logger.warn({ err, job_id: job.id }, 'job queue: lease renewal failed'));
    }, this.leaseMs / 3);
    renew.unref();
    this.renewals.add(renew);
    const context: JobContext = {
      id: job.id,
      name: job.name,
      attempt: job.attempts,
      maxAttempts: job.max_attempts,
      signal: controller.signal,
    };
    try {
      await w.handler(JSON.parse(job.payload) as unknown, context);
      await this.finish(job.id, { status: 'done', last_error: null });
    } catch (err) {
      await this.recordFailure(job, err).catch((e: unknown) =>
        this.options.logger.error({ err: e, job_id: job.id }, 'job queue: recording a failure failed'),
      );
    } finally {
      clearInterval(renew);
      this.renewals.delete(renew);
      this.controllers.delete(controller);
    }
  }

  private async recordFailure(job: { id: string; name: string; attempts: number; max_attempts: number }, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    // Unrecoverable: PermanentJobError, or an error that says so itself (EngineError, RemoteFailure with retryable false).
    const permanent =
      err instanceof PermanentJobError || (typeof err === 'object' && err !== null && (err as { retryable?: unknown }).retryable === false);
    if (permanent || job.attempts >= job.max_attempts) {
      this.options.logger.warn({ job_id: job.id, job: job.name, attempt: job.attempts, err }, 'job failed for good');
      await this.finish(job.id, { status: 'failed', last_error: message });
    } else {
      // The error's Retry-After (a remote 429) when it carries one, else the job's backoff.
      const delay = nextDelay(this.backoffs.get(job.name) ?? defaultBackoff, job.attempts, err);
      this.options.logger.info(
        { job_id: job.id, job: job.name, attempt: job.attempts, retry_in_ms: delay, error: message },
        'job will retry',
      );
      await this.finish(job.id, { status: 'pending', last_error: message, run_at: new Date(this.now().getTime() + delay).toISOString() });
    }
  }

  private async finish(id: string, values: { status: string; last_error: string | null; run_at?: string }): Promise<void> {
    await this.database.db
      .updateTable('jobs')
      .set({ ...values, locked_until: null, locked_by: null, updated_at: this.now().toISOString() })
      .where('id', '=', id)
      .where('locked_by', '=', this.workerId)
      .execute();
  }

  async stats(): Promise<JobQueueStats[]> {
    const now = this.now();
    const nowIso = now.toISOString();
    const rows = await this.database.db
      .selectFrom('jobs')
      .select((eb) => [
        'name',
        'status',
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.min('run_at').as('oldest'),
        sql<number | string>`sum(case when run_at > ${nowIso} then 1 else 0 end)`.as('later'),
      ])
      .where('status', 'in', ['pending', 'running'])
      .groupBy(['name', 'status'])
      .execute();
    const byName = new Map<string, JobQueueStats>();
    for (const r of rows) {
      const s = byName.get(r.name) ?? { name: r.name, waiting: 0, running: 0, delayed: 0, oldestWaitingSeconds: 0 };
      byName.set(r.name, s);
      if (r.status === 'running') s.running += Number(r.n);
      else {
        s.delayed += Number(r.later);
        s.waiting += Number(r.n) - Number(r.later);
        const oldest = r.oldest ? now.getTime() - Date.parse(String(r.oldest)) : 0;
        s.oldestWaitingSeconds = Math.max(0, oldest / 1000);
      }
    }
    return [...byName.values()];
  }

  /** A job's state, for status endpoints and tests. */
  async get(id: string) {
    return (await this.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    const all = Promise.allSettled([...this.inFlight]);
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
    if ((await Promise.race([all, timeout])) === 'timeout') {
      // Handlers still running are told to stop and their leases are no longer renewed: they
      // lapse and another worker (or this one after a restart) takes the jobs up again.
      for (const c of this.controllers) c.abort();
      for (const t of this.renewals) clearInterval(t);
      this.renewals.clear();
      await Promise.race([all, new Promise((r) => setTimeout(r, 1000).unref())]);
    }
  }
}
