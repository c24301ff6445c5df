/**
 * Glossary problems as transport errors. The import form reports them as 422
 * `validation_failed` with every problem in details; the WebSocket `config` action reports
 * the first problem's own config_* code (400; 413 for config_payload_too_large).
 */
import { AppError } from '../platform/errors/app-error.js';
import type { GlossaryProblem } from './types.js';

const detail = (p: GlossaryProblem) => ({
  code: p.code,
  field: p.field,
  ...(p.language !== undefined && { language: p.language }),
  ...(p.index !== undefined && { index: p.index }),
  ...(p.actual !== undefined && { actual: p.actual }),
  ...(p.limit !== undefined && { limit: p.limit }),
  message: p.message,
});

/** Import form: 422 validation_failed; the message is the first problem (authoritative counts). */
export function glossaryImportError(problems: GlossaryProblem[]): AppError {
  const first = problems[0]!;
  return new AppError('validation_failed', {
    message: first.message,
    details: { field: first.field, problems: problems.map(detail) },
  });
}

/** WebSocket `config` action: the spec's config_* code of the first problem. */
export function glossarySocketError(problems: GlossaryProblem[]): AppError {
  const first = problems[0]!;
  return new AppError(first.code, { message: first.message, details: { problems: problems.map(detail) }, variant: 'websocket' });
}
