/**
 * The transport under every REST and SSE call: builds the URL on the right host ({base_url},
 * or {realtime_url} for the real-time service's routes), adds X-API-Key, sends JSON or a form,
 * and turns an error answer into a ParleyError. Browser-safe: fetch only.
 */
import type { Operations } from './api-types.js';
import { ParleyError } from './errors.js';
import { SseStream } from './sse.js';

export type OperationKey = keyof Operations;
/** The success body of an operation (its 2xx responses). */
export type Success<K extends OperationKey> = Operations[K]['responses'][keyof Operations[K]['responses']];
/** The known events of an SSE operation: name -> payload. */
export type EventsOf<K extends OperationKey> = Operations[K]['events'];
/** The error codes an operation declares (more may come from a later server). */
export type ErrorCodeOf<K extends OperationKey> = Operations[K]['errorCodes'];

/** Operations served by the real-time service ({realtime_url}); the rest go to {base_url}. */
export const REALTIME_OPERATIONS: ReadonlySet<OperationKey> = new Set<OperationKey>([
  'GET /version',
  'GET /tasks/{taskId}/subtitle',
  'POST /api/v1/glossary/validate',
]);

type Scalar = string | number | boolean;
export interface CallInput {
  path?: Record<string, Scalar>;
  query?: Record<string, Scalar | readonly Scalar[] | undefined | null>;
  /** JSON body, or a FormData (multipart). */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send no API key (public routes; also avoids a needless CORS preflight in browsers). */
  anonymous?: boolean;
}

export interface TransportOptions {
  /** {base_url}: REST and SSE host, e.g. http://localhost:8080 (no /api/v1). */
  baseUrl: string;
  /** {realtime_url}: the real-time host (WebSocket, floating subtitles, its /version); default baseUrl. */
  realtimeUrl?: string;
  apiKey?: string;
  /** A fetch to use instead of globalThis.fetch. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Called before each request (tests record coverage; apps log). */
  onRequest?: (operation: OperationKey, url: string) => void;
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

export class Transport {
  readonly baseUrl: string;
  readonly realtimeUrl: string;
  apiKey: string | undefined;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = trimSlash(options.baseUrl);
    this.realtimeUrl = trimSlash(options.realtimeUrl ?? options.baseUrl);
    this.apiKey = options.apiKey;
    const f = options.fetch ?? globalThis.fetch;
    if (!f) throw new Error('no fetch: pass options.fetch');
    this.fetchFn = f.bind(globalThis);
  }

  /** The full URL of an operation with its path and query parameters. */
  url(op: OperationKey, input: Pick<CallInput, 'path' | 'query'> = {}): string {
    const [, template] = op.split(' ') as [string, string];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = input.path?.[name];
      if (v === undefined) throw new TypeError(`${op}: path parameter ${name} is missing`);
      return encodeURIComponent(String(v));
    });
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) q.append(k, String(item));
    }
    const host = REALTIME_OPERATIONS.has(op) ? this.realtimeUrl : this.baseUrl;
    const qs = q.toString();
    return `${host}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Sends the request; a non-2xx answer throws a ParleyError. */
  async send(op: OperationKey, input: CallInput = {}): Promise<Response> {
    const [method] = op.split(' ') as [string];
    const url = this.url(op, input);
    const headers: Record<string, string> = { ...this.options.headers, ...input.headers };
    if (this.apiKey && !input.anonymous) headers['X-API-Key'] = this.apiKey;
    let body: RequestInit['body'];
    if (input.body instanceof FormData) body = input.body;
    else if (input.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    this.options.onRequest?.(op, url);
    let res: Response;
    try {
      res = await this.fetchFn(url, { method, headers, body, signal: input.signal });
    } catch (err) {
      if (input.signal?.aborted) throw err;
      throw new ParleyError({ code: 'network_error', message: `${method} ${url}: ${(err as Error).message}`, body: err });
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      throw ParleyError.fromBody(res.status, parsed, res.headers.get('x-request-id') ?? undefined);
    }
    return res;
  }

  /** A JSON operation: the parsed body. */
  async json<K extends OperationKey>(op: K, input: CallInput = {}): Promise<Success<K>> {
    const res = await this.send(op, input);
    const text = await res.text();
    return (text ? JSON.parse(text) : null) as Success<K>;
  }

  /** A file download: the body as a Blob (its type is the response content type). */
  async blob(op: OperationKey, input: CallInput = {}): Promise<Blob> {
    const res = await this.send(op, input);
    return res.blob();
  }

  /** An SSE operation: errors found before the stream opens throw; then the events. */
  async stream<K extends OperationKey>(op: K, input: CallInput = {}): Promise<SseStream<EventsOf<K>>> {
    const abort = new AbortController();
    if (input.signal) input.signal.addEventListener('abort', () => abort.abort(), { once: true });
    const res = await this.send(op, { ...input, headers: { Accept: 'text/event-stream', ...input.headers }, signal: abort.signal });
    return new SseStream<EventsOf<K>>(res, abort);
  }
}
