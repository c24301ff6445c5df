/**
 * Glossary problems as transport errors. The import form reports them as 422
 * `validation_failed` with the first 100 problems in details; the WebSocket `config` action reports
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

/**
 * At most this many problems are listed in an answer (the rest counted in `problems_total`):
 * a 1 MB glossary of empty entries has hundreds of thousands of problems, and listing each
 * made the answer some 40 times larger than the request.
 */
export const MAX_LISTED_PROBLEMS = 100;

const listed = (problems: GlossaryProblem[]) => ({
  problems: problems.slice(0, MAX_LISTED_PROBLEMS).map(detail),
  ...(problems.length > MAX_LISTED_PROBLEMS ? { problems_total: problems.length } : {}),
});

/** Import form: 422 validation_failed; the message is the first problem (authoritative counts). */
export function glossaryImportError(problems: GlossaryProblem[]): AppError {
  const first = problems[0]!;
  return new AppError('validation_failed', {
    message: first.message,
    details: { field: first.field, ...listed(problems) },
  });
}

/** WebSocket `config` action: the spec's config_* code of the first problem. */
export function glossarySocketError(problems: GlossaryProblem[]): AppError {
  const first = problems[0]!;
  return new AppError(first.code, { message: first.message, details: listed(problems), variant: 'websocket' });
}
