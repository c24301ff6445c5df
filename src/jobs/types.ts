import type { Executor } from '../store/database.js';

/**
 * A durable job queue: a job enqueued survives a restart and runs at least once. Handlers
 * must be idempotent (they get the attempt number and the job id to make that easy).
 * The embedded implementation keeps jobs in the database (store-queue.ts); with REDIS_URL they
 * are on Redis through BullMQ (bull-queue.ts).
 */
export interface JobOptions {
  /** Run no earlier than this time. */
  runAt?: Date;
  /** Total attempts including the first (default 5). */
  maxAttempts?: number;
  /** A second enqueue with the same key while the first is pending is dropped. */
  dedupeKey?: string;
  /**
   * Fairness group (the account, for imports): among due jobs of one name, the group whose
   * last job was claimed longest ago goes first, so one group's many jobs take turns with
   * the others' instead of running ahead of them. Jobs without one keep due-time order.
   */
  fairKey?: string;
  /** Enqueue inside this open transaction: the job exists only if the caller's transaction commits. */
  within?: Executor;
}

export interface JobContext {
  id: string;
  name: string;
  attempt: number;
  maxAttempts: number;
  signal: AbortSignal;
}

/**
 * Throw this from a handler to fail the job at once, without further attempts (so does any
 * error with `retryable: false`, as EngineError and RemoteFailure carry it; src/platform/retry.ts).
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

export interface WorkOptions {
  /** Jobs of this name run at once in this process (default 1). */
  concurrency?: number;
  /**
   * Delay before attempt n+1, in ms: a Backoff of src/platform/retry.ts (default: exponential
   * with full jitter from 1 s, capped at 5 min). An error's `retryAfterMs` takes its place.
   */
  backoffMs?: (attempt: number) => number;
}

export type JobHandler<P = unknown> = (payload: P, context: JobContext) => Promise<void>;

/** A job as status checks and tests see it, on every implementation. */
export interface JobState {
  id: string;
  name: string;
  /** pending | running | done | failed */
  status: string;
  /** Attempts started so far (a crashed attempt counts). */
  attempts: number;
  max_attempts: number;
  /** When a pending job is due (ISO). */
  run_at: string;
  last_error: string | null;
}

export interface JobQueue {
  enqueue<P>(name: string, payload: P, options?: JobOptions): Promise<string>;
  /** Registers the handler for `name` and starts working it (worker role). */
  work<P>(name: string, handler: JobHandler<P>, options?: WorkOptions): void;
  /** A job's state (null when unknown or forgotten). */
  get(id: string): Promise<JobState | null>;
  /** Queue depth and age per job name, for metrics (src/metrics). */
  stats(): Promise<JobQueueStats[]>;
  /** Stops taking jobs and waits for running ones (up to the grace period). */
  close(graceMs?: number): Promise<void>;
}

export interface JobQueueStats {
  name: string;
  /** Jobs due and not yet taken by a worker. */
  waiting: number;
  /** Jobs a worker is running. */
  running: number;
  /** Scheduled for later (retries after a backoff, delayed jobs). */
  delayed: number;
  /** How long the oldest waiting job has been due, in seconds (0 when none waits). */
  oldestWaitingSeconds: number;
}
