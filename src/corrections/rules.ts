/**
 * The rules of sentence corrections, shared by the REST endpoints (service.ts, on a stored
 * transcript) and the live WebSocket actions (src/realtime/correction-actions.ts, on the
 * running recording): what a correction may say, the revision check, and the
 * `sentence_corrected` event every audience gets. Decisions: docs/corrections.md.
 */
import { AppError } from '../platform/errors/app-error.js';
import type { SentenceCorrected } from '../stream/events.js';

/** The longest corrected text, in characters (a caption line, with room to spare). */
export const MAX_CORRECTION_CHARS = 2000;

export type RevisionKind = 'recognized' | 'correction' | 'undo';

export interface CorrectionInput {
  text: string;
  /** The revision the client edited (optional): a newer one gives sentence_revision_conflict. */
  revision: number | null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: line breaks and controls have no place in a caption
const BREAKS = /[\u0000-\u001f\u007f\u2028\u2029\u0085]+/g;

/** `text` of a correction: a string, trimmed (line breaks and controls become spaces), 1 to MAX_CORRECTION_CHARS characters. */
export function parseCorrection(body: Record<string, unknown>): CorrectionInput {
  const raw = body.text;
  if (typeof raw !== 'string') {
    throw new AppError('validation_failed', { message: 'text is required and must be a string.', details: { field: 'text' } });
  }
  const text = raw.replace(BREAKS, ' ').trim();
  if (text === '') throw new AppError('sentence_text_empty', { details: { field: 'text' } });
  const length = [...text].length;
  if (length > MAX_CORRECTION_CHARS) {
    throw new AppError('sentence_text_too_long', { details: { field: 'text', max: MAX_CORRECTION_CHARS, length } });
  }
  return { text, revision: parseRevision(body) };
}

/** The optional `revision` a client edited: an integer from 0. */
export function parseRevision(body: Record<string, unknown>): number | null {
  const r = body.revision;
  if (r === undefined || r === null) return null;
  if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 0) {
    throw new AppError('validation_failed', { message: 'revision must be an integer from 0.', details: { field: 'revision' } });
  }
  return r;
}

/** A sentence id in a WebSocket action's `sid`: an integer from 1. */
export function parseActionSid(body: Record<string, unknown>): number {
  const sid = body.sid;
  if (typeof sid !== 'number' || !Number.isSafeInteger(sid) || sid < 1) {
    throw new AppError('validation_failed', { message: 'sid must be a sentence id (an integer from 1).', details: { field: 'sid' } });
  }
  return sid;
}

/** The client edited an older revision than the current one. */
export function assertRevision(expected: number | null, current: number): void {
  if (expected !== null && expected !== current) {
    throw new AppError('sentence_revision_conflict', { details: { revision: current, expected_revision: expected } });
  }
}

/** A sentence at one revision: its text and translations (what an undo restores). */
export interface SentenceVersion {
  origin: string;
  translations: Record<string, string> | null;
  translationErrors: Record<string, string> | null;
}

export function correctedEvent(
  taskId: string,
  sentence: { sid: number; startMs: number; speakerId?: string | null },
  revision: number,
  kind: 'correction' | 'undo',
  previous: string,
  now: SentenceVersion,
): SentenceCorrected {
  return {
    task_id: taskId,
    sid: sentence.sid,
    revision,
    kind,
    text: now.origin,
    previous_text: previous,
    translations: { ...(now.translations ?? {}) },
    translation_errors: { ...(now.translationErrors ?? {}) },
    speaker_id: sentence.speakerId ?? null,
    // Milliseconds until the edge that shows it (src/stream/wire.ts wireCorrected: mm:ss start_time).
    start_ms: sentence.startMs,
  };
}
