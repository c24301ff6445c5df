/**
 * Maps remote failures to the spec's codes. The same HTTP failure means different things
 * per service: a 401 is `llm_auth_failed` for chat but `stt_auth_failed` for transcription.
 */
import { EngineError } from '../errors.js';
import { RemoteFailure } from './http.js';

function asFailure(err: unknown): RemoteFailure {
  return err instanceof RemoteFailure ? err : new RemoteFailure('protocol', err instanceof Error ? err.message : String(err));
}

export function llmError(err: unknown, engineId: string): EngineError {
  if (err instanceof EngineError) return err;
  const f = asFailure(err);
  const mk = (code: ConstructorParameters<typeof EngineError>[0], retryable: boolean) =>
    new EngineError(code, f.message, { retryable, engineId, cause: f });
  if (f.kind === 'content_filter' || f.providerCode === 'content_filter') return mk('llm_content_filtered', false);
  if (f.kind === 'timeout' || f.status === 408) return mk('llm_timeout', true);
  if (f.providerCode === 'insufficient_quota' || f.status === 402) return mk('llm_quota_exceeded', false);
  if (f.status === 429) return mk('llm_rate_limit', true);
  if (f.status === 401 || f.status === 403) return mk('llm_auth_failed', false);
  if (f.status === 404) return mk('llm_deployment_not_found', false);
  if (f.status !== undefined && f.status >= 500) return mk('llm_provider_error', true);
  if (f.kind === 'aborted') return mk('llm_request_failed', false);
  return mk('llm_request_failed', f.kind === 'network');
}

export function sttError(err: unknown, engineId: string): EngineError {
  if (err instanceof EngineError) return err;
  const f = asFailure(err);
  if (f.status === 401 || f.status === 403) return new EngineError('stt_auth_failed', f.message, { engineId, cause: f });
  const lost = f.kind === 'timeout' || f.kind === 'network' || f.status === 408 || f.status === 429 || (f.status ?? 0) >= 500;
  if (lost) return new EngineError('stt_connection_lost', f.message, { retryable: true, engineId, cause: f });
  return new EngineError('stt_start_failed', f.message, { engineId, cause: f });
}

export function translationError(err: unknown, engineId: string): EngineError {
  const inner = err instanceof EngineError ? err : llmError(err, engineId);
  return new EngineError('translation_failed', inner.message, { retryable: inner.retryable, engineId, cause: inner });
}

export function ttsError(err: unknown, engineId: string): EngineError {
  if (err instanceof EngineError) return err;
  const f = asFailure(err);
  const retryable = f.kind === 'timeout' || f.kind === 'network' || f.status === 408 || f.status === 429 || (f.status ?? 0) >= 500;
  return new EngineError('tts_sample_generation_failed', f.message, { retryable, engineId, cause: f });
}
