import type { ErrorCode } from '../platform/errors/registry.js';

/**
 * A failure inside an engine, named by a spec error code (`stt_start_failed`,
 * `llm_timeout`, `translation_failed`, ...). `retryable` says whether the same request may
 * succeed later (timeouts, 429, 5xx, a restarted process); callers own the retry policy.
 */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly engineId: string | undefined;

  constructor(code: ErrorCode, message: string, options: { retryable?: boolean; engineId?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.engineId = options.engineId;
  }
}
