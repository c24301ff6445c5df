/**
 * The one retry policy. Whether a failure may succeed later is carried by the error
 * (`retryable: true`, as EngineError, RemoteFailure and DownloadError set it; anything else
 * is unrecoverable), and a server's wait by `retryAfterMs` (from `Retry-After`, seconds or an
 * HTTP date). Delays come from a `Backoff`:
 * - `exponentialBackoff`: full jitter (AWS's "full jitter": uniform in [0, min(cap, base*2^(n-1))]),
 *   so clients that failed together do not retry together;
 * - `fixedSchedule`: exact steps, for schedules the spec fixes (webhooks: 10, 30, 90, 270 s).
 * `retry()` runs an in-process loop (remote HTTP, model download); the durable job queue
 * uses the same Backoff functions to set a job's next run time (src/jobs/store-queue.ts).
 */

/** Delay in ms after failed attempt `n` (1 = the first attempt failed). */
export type Backoff = ((failedAttempt: number) => number) & {
  /** A schedule the spec fixes: kept exactly, a server's Retry-After does not replace it. */
  readonly exact?: boolean;
};

export interface ExponentialBackoffOptions {
  /** Upper bound of the first delay. */
  baseMs: number;
  /** Upper bound of any delay. */
  maxMs?: number;
  /** Uniform in [0, 1); injected by tests. */
  random?: () => number;
}

export function exponentialBackoff({ baseMs, maxMs = Number.POSITIVE_INFINITY, random = Math.random }: ExponentialBackoffOptions): Backoff {
  return (failedAttempt) => {
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempt - 1));
    return Math.round(random() * ceiling);
  };
}

/** Exact delays, no jitter, no Retry-After; attempts past the end wait the last step. */
export function fixedSchedule(stepsMs: readonly number[]): Backoff {
  if (stepsMs.length === 0) throw new Error('fixedSchedule needs at least one step');
  const step = (failedAttempt: number) => stepsMs[Math.min(Math.max(failedAttempt, 1), stepsMs.length) - 1] as number;
  return Object.assign(step, { exact: true });
}

/**
 * `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent
 * or unreadable. Fractional seconds ("0.5", sent by some rate limiters) are taken as meant.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date names its day and month ("Mon, 23 Nov 2026 12:00:30 GMT"); Date.parse alone would take "-5" as a year.
  const at = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** Only errors that say so are retried. */
export function isRetryable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { retryable?: unknown }).retryable === true;
}

/** The wait a server asked for, when the error carries one. */
export function retryAfterOf(err: unknown): number | undefined {
  const ms = typeof err === 'object' && err !== null ? (err as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The delay before the next attempt: the server's Retry-After (capped) when given, else the backoff (always, when exact). */
export function nextDelay(backoff: Backoff, failedAttempt: number, err: unknown, maxRetryAfterMs = 5 * 60_000): number {
  const asked = backoff.exact ? undefined : retryAfterOf(err);
  return asked === undefined ? backoff(failedAttempt) : Math.min(asked, maxRetryAfterMs);
}

export interface RetryOptions {
  /** Total attempts, the first included. */
  attempts: number;
  backoff: Backoff;
  /** Cap on a server's Retry-After, so a hostile server cannot park a request (default 5 min). */
  maxRetryAfterMs?: number;
  /** Stops the waiting (and further attempts) at once. */
  signal?: AbortSignal;
  /** The error thrown when `signal` aborts during a wait (default: the signal's reason). */
  abortError?: () => unknown;
  /** Default `isRetryable` (the error's own `retryable`). */
  retryable?: (err: unknown) => boolean;
  onRetry?: (info: { failedAttempt: number; delayMs: number; error: unknown }) => void;
  /** Injected by tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Runs `fn` until it succeeds, an error is unrecoverable, or the attempts are used up (the last error is thrown). */
export async function retry<T>(fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const retryable = o.retryable ?? isRetryable;
  const wait = o.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (o.signal?.aborted || attempt >= o.attempts || !retryable(err)) throw err;
      const delayMs = nextDelay(o.backoff, attempt, err, o.maxRetryAfterMs);
      o.onRetry?.({ failedAttempt: attempt, delayMs, error: err });
      try {
        await wait(delayMs, o.signal);
      } catch (abort) {
        throw o.abortError ? o.abortError() : abort;
      }
    }
  }
}

/** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
