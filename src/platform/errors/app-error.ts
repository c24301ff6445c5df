import { ERRORS, type ErrorCode, type ErrorVariant, type Severity, statusOf } from './registry.js';

export interface AppErrorOptions {
  /** Overrides the registry's display text (still display-only). */
  message?: string;
  details?: Record<string, unknown> | null;
  /** Sentence id for sentence-level errors. */
  sid?: number;
  /** Overrides the registry's context. */
  context?: string;
  /** Where the error is reported; picks the status from the registry's per-variant table. */
  variant?: ErrorVariant;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error that maps to one registry code. Throw it anywhere; transports render it. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | null;
  readonly sid: number | undefined;
  readonly context: string;
  readonly variant: ErrorVariant;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? ERRORS[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details ?? null;
    this.sid = options.sid;
    this.context = options.context ?? ERRORS[code].context;
    this.variant = options.variant ?? 'rest';
    this.headers = options.headers ?? {};
  }

  get severity(): Severity {
    return ERRORS[this.code].severity;
  }

  /** HTTP status for this error where it is reported; 500 for WebSocket-only codes. */
  get status(): number {
    return statusOf(this.code, this.variant) ?? 500;
  }
}

/** The standard error object of the spec ("Errors"). */
export interface ErrorObject {
  error_code: ErrorCode;
  severity: Severity;
  message: string;
  context: string;
  sid?: number;
  request_id?: string;
  timestamp: string;
  details: Record<string, unknown> | null;
}

export function toErrorObject(err: AppError, requestId?: string, now: Date = new Date()): ErrorObject {
  const obj: ErrorObject = {
    error_code: err.code,
    severity: err.severity,
    message: err.message,
    context: err.context,
    timestamp: now.toISOString(),
    details: err.details,
  };
  if (err.sid !== undefined) obj.sid = err.sid;
  if (requestId !== undefined) obj.request_id = requestId;
  return obj;
}

/**
 * The three body shapes the spec uses for errors:
 * - `standard`: `{data: <error object>}` (REST); SSE/WebSocket send the inner object.
 * - `subtitle-token`: `{error: <code>}` (floating-subtitle token endpoints), except their 429
 *   `too_many_requests`, which the spec gives the standard shape.
 * - `summary-template`: `{errorCode, message}` (summary-template 400/404).
 */
export type ErrorShape = 'standard' | 'subtitle-token' | 'summary-template';

export function renderErrorBody(err: AppError, shape: ErrorShape, requestId?: string): unknown {
  switch (shape) {
    case 'subtitle-token':
      if (err.code === 'too_many_requests') return { data: toErrorObject(err, requestId) };
      return { error: err.code };
    case 'summary-template':
      if (err.status === 400 || err.status === 404) return { errorCode: err.code, message: err.message };
      return { data: toErrorObject(err, requestId) };
    default:
      return { data: toErrorObject(err, requestId) };
  }
}

/** Wraps anything thrown into an AppError; unknown errors become internal_error. */
export function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('internal_error', { cause: err });
}
