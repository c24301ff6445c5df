/**
 * HTTP for the remote tier: one request with a per-attempt timeout, retried by the shared
 * policy (src/platform/retry.ts: exponential backoff with full jitter, the server's
 * Retry-After when it sends one) on 408, 429, 5xx and network errors, never on other 4xx,
 * a quota 429 or a timeout (a slow model stays slow). Failures come out as `RemoteFailure`,
 * which each engine maps to its own spec codes (LLM, STT, translation, TTS name failures
 * differently).
 */
import { exponentialBackoff, parseRetryAfter, retry } from '../../platform/retry.js';

export interface RemoteEndpoint {
  /** Base URL including the version path, e.g. "http://localhost:11434/v1". */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  retries: number;
  /** Upper bound of the first backoff; doubled per attempt. Tests shorten it. */
  retryBaseMs?: number;
}

export type FailureKind = 'timeout' | 'http' | 'network' | 'aborted' | 'content_filter' | 'protocol';

export class RemoteFailure extends Error {
  /** Whether the same request may succeed later (read by the retry policy). */
  readonly retryable: boolean;
  /** The server's Retry-After, in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    /** Provider error code from the JSON body (`insufficient_quota`, `content_filter`, ...). */
    readonly providerCode?: string,
    options?: { cause?: unknown; retryable?: boolean; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = 'RemoteFailure';
    this.retryable = options?.retryable ?? false;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

const RETRY_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;
const MAX_WAIT_MS = 30_000;

export interface RemoteRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A function: FormData and streams cannot be sent twice, so each attempt builds its own. */
  body?: () => string | FormData | Blob;
  signal?: AbortSignal;
}

/**
 * Sends the request and returns the successful response together with the signal that
 * still bounds reading its body (streams are read under the same timeout).
 */
export async function remoteFetch(ep: RemoteEndpoint, req: RemoteRequest): Promise<Response> {
  const url = `${ep.baseUrl.replace(/\/+$/, '')}${req.path}`;
  return retry(() => attempt(ep, req, url), {
    attempts: ep.retries + 1,
    backoff: exponentialBackoff({ baseMs: ep.retryBaseMs ?? 500, maxMs: MAX_WAIT_MS }),
    maxRetryAfterMs: MAX_WAIT_MS,
    signal: req.signal,
    abortError: () => new RemoteFailure('aborted', 'request cancelled'),
  });
}

async function attempt(ep: RemoteEndpoint, req: RemoteRequest, url: string): Promise<Response> {
  const timeout = AbortSignal.timeout(ep.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers: { ...(ep.apiKey ? { authorization: `Bearer ${ep.apiKey}` } : {}), ...req.headers },
      body: req.body?.(),
      signal,
    });
  } catch (err) {
    if (req.signal?.aborted) throw new RemoteFailure('aborted', 'request cancelled', undefined, undefined, { cause: err });
    if (timeout.aborted)
      throw new RemoteFailure('timeout', `no answer from ${url} within ${ep.timeoutMs} ms`, undefined, undefined, { cause: err });
    throw new RemoteFailure('network', `cannot reach ${url}: ${causeText(err)}`, undefined, undefined, { cause: err, retryable: true });
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => '');
  const { message, code } = parseErrorBody(text);
  // OpenAI sends 429 with code insufficient_quota when the account is out of credit: retrying cannot help.
  const retryable = RETRY_STATUS(res.status) && code !== 'insufficient_quota';
  throw new RemoteFailure(
    code === 'content_filter' ? 'content_filter' : 'http',
    `${url} answered ${res.status}${message ? `: ${message}` : ''}`,
    res.status,
    code,
    {
      retryable,
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
    },
  );
}

/** Maps an error thrown while reading a response body (timeouts fire mid-stream too). */
export function bodyFailure(err: unknown, ep: RemoteEndpoint, signal?: AbortSignal): RemoteFailure {
  if (err instanceof RemoteFailure) return err;
  if (signal?.aborted) return new RemoteFailure('aborted', 'request cancelled', undefined, undefined, { cause: err });
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError')
    return new RemoteFailure('timeout', `answer not complete within ${ep.timeoutMs} ms`, undefined, undefined, { cause: err });
  return new RemoteFailure('network', `connection lost while reading the answer: ${causeText(err)}`, undefined, undefined, { cause: err });
}

export function parseErrorBody(text: string): { message?: string; code?: string } {
  try {
    const j = JSON.parse(text) as { error?: { message?: string; code?: string | number; type?: string } | string };
    if (typeof j.error === 'string') return { message: j.error };
    const code = j.error?.code ?? j.error?.type;
    return { message: j.error?.message, code: code === undefined ? undefined : String(code) };
  } catch {
    return { message: text.slice(0, 200) || undefined };
  }
}

function causeText(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
  return cause ?? (err instanceof Error ? err.message : String(err));
}

/** Reads a `text/event-stream` body and yields each `data:` payload. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      nl = buf.indexOf('\n');
    }
  }
  if (data.length) yield data.join('\n');
}
