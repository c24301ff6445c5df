/**
 * A refusal (`needs.ts`) as the interface's error: the caller picks the spec code
 * (stt_init_failed, diarization_unavailable, llm_init_failed, ...); the message says what no
 * engine here serves and `details.missing` names the unmet requirements.
 */
import { AppError, type AppErrorOptions } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';
import type { Refusal } from './needs.js';

export function refusalDetails(refusal: Refusal): { engine_kind: string; missing: string[]; reason: string } {
  return { engine_kind: refusal.kind, missing: refusal.missing, reason: refusal.message };
}

/** "No streaming recognizer here serves de-DE with diarization." */
export function refusalSentence(refusal: Refusal): string {
  return `${refusal.message.charAt(0).toUpperCase()}${refusal.message.slice(1)}.`;
}

export function refusalError(code: ErrorCode, refusal: Refusal, options: AppErrorOptions = {}): AppError {
  return new AppError(code, {
    ...options,
    message: options.message ?? refusalSentence(refusal),
    details: { ...options.details, ...refusalDetails(refusal) },
  });
}
