/**
 * HTTP for the remote tier: one request with a per-attempt timeout, retried with
 * exponential backoff and jitter on 408, 429, 5xx and network errors (Retry-After wins when
 * the server sends it), never on other 4xx. Failures come out as `RemoteFailure`, which each
 * engine maps to its own spec codes (LLM, STT, translation, TTS name failures differently).
 */

export interface RemoteEndpoint {
  /** Base URL including the version path, e.g. "http://localhost:11434/v1". */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  retries: number;
  /** First backoff step; doubled per attempt. Tests shorten it. */
  retryBaseMs?: number;
}

export type FailureKind = 'timeout' | 'http' | 'network' | 'aborted' | 'content_filter' | 'protocol';

export class RemoteFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    /** Provider error code from the JSON body (`insufficient_quota`, `content_filter`, ...). */
    readonly providerCode?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RemoteFailure';
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
  const base = ep.retryBaseMs ?? 500;
  for (let attempt = 0; ; attempt++) {
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
      if (attempt < ep.retries) {
        await sleep(backoff(base, attempt), req.signal);
        continue;
      }
      throw new RemoteFailure('network', `cannot reach ${url}: ${causeText(err)}`, undefined, undefined, { cause: err });
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    if (RETRY_STATUS(res.status) && attempt < ep.retries && !isQuota(text)) {
      await sleep(retryAfterMs(res.headers.get('retry-after')) ?? backoff(base, attempt), req.signal);
      continue;
    }
    const { message, code } = parseErrorBody(text);
    throw new RemoteFailure(
      code === 'content_filter' ? 'content_filter' : 'http',
      `${url} answered ${res.status}${message ? `: ${message}` : ''}`,
      res.status,
      code,
    );
  }
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

function isQuota(body: string): boolean {
  // OpenAI sends 429 with code insufficient_quota when the account is out of credit: retrying cannot help.
  return parseErrorBody(body).code === 'insufficient_quota';
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

/** Retry-After as seconds or an HTTP date; capped so a hostile server cannot park a request. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const secs = Number(header);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_WAIT_MS) : undefined;
}

function backoff(base: number, attempt: number): number {
  const step = base * 2 ** attempt;
  return Math.min(step + Math.random() * step, MAX_WAIT_MS); // full jitter on top of the step
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RemoteFailure('aborted', 'request cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new RemoteFailure('aborted', 'request cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
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
