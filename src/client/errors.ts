/**
 * The one error type of the client. Every failure the server reports, in any of its three body
 * shapes (standard `{data: {error_code, ...}}`, `{error: <code>}` of the subtitle-token routes,
 * `{errorCode, message}` of the summary-template routes), an SSE `error` event that ends a
 * stream, or a WebSocket `error` message, becomes a ParleyError with the code, the HTTP status
 * (0 where there is none), the severity, the details and the request id.
 */

/** The standard error object (interface "Errors"). Codes are open: new ones may appear. */
export interface ErrorObject {
  error_code: string;
  severity: 'fatal' | 'error' | 'warning' | (string & {});
  message: string;
  context?: string;
  sid?: number;
  request_id?: string;
  timestamp?: string;
  details?: Record<string, unknown> | null;
  [key: string]: unknown;
}

export class ParleyError extends Error {
  override readonly name = 'ParleyError';
  /** The error code (`error_code`); `network_error` when the server could not be reached, `http_<status>` for a body without a code. */
  readonly code: string;
  /** HTTP status; 0 for WebSocket and SSE-event errors and network failures. */
  readonly status: number;
  readonly severity: string;
  readonly details: Record<string, unknown> | null;
  readonly requestId: string | undefined;
  /** Sentence id of a sentence-level error. */
  readonly sid: number | undefined;
  /** The body or event as received. */
  readonly body: unknown;

  constructor(init: {
    code: string;
    message: string;
    status?: number;
    severity?: string;
    details?: Record<string, unknown> | null;
    requestId?: string;
    sid?: number;
    body?: unknown;
  }) {
    super(init.message);
    this.code = init.code;
    this.status = init.status ?? 0;
    this.severity = init.severity ?? 'error';
    this.details = init.details ?? null;
    this.requestId = init.requestId;
    this.sid = init.sid;
    this.body = init.body;
  }

  /** From a standard error object (WebSocket `error` message, SSE `error` event). */
  static fromObject(e: Partial<ErrorObject>, status = 0, requestId?: string): ParleyError {
    return new ParleyError({
      code: e.error_code ?? 'unknown_error',
      message: e.message ?? e.error_code ?? 'error',
      status,
      severity: e.severity,
      details: e.details ?? null,
      requestId: e.request_id ?? requestId,
      sid: e.sid,
      body: e,
    });
  }

  /** From an HTTP error answer, whichever of the three body shapes it has. */
  static fromBody(status: number, body: unknown, requestId?: string): ParleyError {
    const b = (body ?? {}) as Record<string, unknown>;
    const data = b.data as Partial<ErrorObject> | undefined;
    if (data && typeof data === 'object' && typeof data.error_code === 'string') {
      return ParleyError.fromObject(data, status, requestId);
    }
    if (typeof b.error === 'string') {
      return new ParleyError({ code: b.error, message: b.error, status, requestId, body });
    }
    if (typeof b.errorCode === 'string') {
      return new ParleyError({ code: b.errorCode, message: String(b.message ?? b.errorCode), status, requestId, body });
    }
    const text = typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`;
    return new ParleyError({ code: `http_${status}`, message: text, status, requestId, body });
  }
}
