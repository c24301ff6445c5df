/**
 * Resumable download to `<dest>.part`: an interrupted transfer continues with an HTTP Range
 * request from the .part's size (a server that answers 200 instead of 206 gets a fresh
 * start), redirects are followed (GitHub release assets redirect to a CDN), and the caller
 * verifies the sha256 before renaming the file into place.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, statSync, truncateSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exponentialBackoff, parseRetryAfter, retry } from '../../platform/retry.js';

export interface DownloadProgress {
  received: number;
  /** Undefined when the server sends no length. */
  total: number | undefined;
}

export interface DownloadOptions {
  onProgress?: (p: DownloadProgress) => void;
  /** Attempts after a dropped connection (each resumes with Range). */
  retries?: number;
  signal?: AbortSignal;
  /** Upper bound of the first delay between attempts (shared retry policy, full jitter); tests shorten it. */
  retryDelayMs?: number;
}

/** Bytes that are not the pinned ones (a download, a file in a PyPI package, a build): never retried from another origin. */
export class ChecksumError extends Error {
  override name = 'ChecksumError';
}

export class DownloadError extends Error {
  override name = 'DownloadError';
  /** A dropped connection or a 408/429/5xx: the next attempt resumes. */
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Downloads `url` into `part` (resuming what is there); resolves with the final size. */
export async function downloadToPart(url: string, part: string, options: DownloadOptions = {}): Promise<number> {
  const attempts = (options.retries ?? 5) + 1;
  try {
    return await retry(() => attemptDownload(url, part, options), {
      attempts,
      backoff: exponentialBackoff({ baseMs: options.retryDelayMs ?? 1000, maxMs: 30_000 }),
      signal: options.signal,
    });
  } catch (err) {
    if (options.signal?.aborted || !(err instanceof DownloadError) || !err.retryable) throw err;
    throw new DownloadError(`download of ${url} failed after ${attempts} attempts: ${err.message}`, { cause: err });
  }
}

/** One attempt: resumes from the .part's size; throws a retryable DownloadError when the next attempt may finish it. */
async function attemptDownload(url: string, part: string, options: DownloadOptions): Promise<number> {
  const have = existsSync(part) ? statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have > 0 ? { range: `bytes=${have}-` } : {}, redirect: 'follow', signal: options.signal });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new DownloadError(err instanceof Error ? err.message : String(err), { retryable: true, cause: err });
  }
  if (res.status === 416 && have > 0) {
    // Range beyond the end: the .part already holds the whole file (or is junk; the checksum decides).
    await res.body?.cancel();
    return have;
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    throw new DownloadError(`${url} answered ${res.status} ${res.statusText}`, {
      retryable: res.status === 408 || res.status === 429 || res.status >= 500,
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
    });
  }
  const resumed = res.status === 206 && have > 0;
  if (!resumed && have > 0) truncateSync(part, 0); // 200: the server ignored Range; start over
  const start = resumed ? have : 0;
  const length = Number(res.headers.get('content-length') ?? Number.NaN);
  const total = Number.isFinite(length) ? start + length : undefined;
  let received = start;
  options.onProgress?.({ received, total });
  if (!res.body) throw new DownloadError(`${url} sent no body`);
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (c: Buffer) => {
    received += c.length;
    options.onProgress?.({ received, total });
  });
  const sink = createWriteStream(part, { flags: resumed ? 'a' : 'w' });
  try {
    await pipeline(body, sink);
  } catch (err) {
    // pipeline rejects as soon as the connection drops, while the file stream may still be
    // finishing a write: the next attempt resumes from the .part's size, so wait until the file
    // is closed (else that late write lands after the resumed bytes and corrupts the file).
    if (!sink.closed) await once(sink, 'close').catch(() => {});
    if (options.signal?.aborted) throw err;
    throw new DownloadError(err instanceof Error ? err.message : String(err), { retryable: true, cause: err });
  }
  const size = statSync(part).size;
  if (total !== undefined && size < total) throw new DownloadError(`connection closed at ${size} of ${total} bytes`, { retryable: true });
  return size;
}
