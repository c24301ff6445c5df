/** How the import job names and tells apart its failures (pipeline.ts). */
import { EngineError } from '../engines/errors.js';
import { AppError } from '../platform/errors/app-error.js';
import { ERRORS, type ErrorCode } from '../platform/errors/registry.js';

/** The text of an import's error_message: the registry's general description of the code. */
export function generalMessage(code: string): string {
  return (ERRORS as Record<string, { message: string }>)[code]?.message ?? ERRORS.internal_error.message;
}

/** Thrown inside an outcome transaction to roll it back: another caller moved the import first. */
export class NotMoved extends Error {}

export class ImportFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
  ) {
    super(detail);
  }
}

export function notMoved(err: unknown): false {
  if (err instanceof NotMoved) return false;
  throw err;
}

export function errorCode(err: unknown): ErrorCode {
  if (err instanceof ImportFailure) return err.code;
  if (err instanceof EngineError) return err.code;
  if (err instanceof AppError) return err.code;
  return 'internal_error';
}
