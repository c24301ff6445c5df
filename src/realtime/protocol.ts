/**
 * The wire format: every message is JSON `{type, data}` with type `health`,
 * `voice-translation` or `error`; voice-translation messages carry `data.action`.
 * Parsing never throws: a bad message becomes an AppError the connection reports and
 * survives (spec "WebSocket events": single-message failures do not close the connection).
 */
import { AppError, toErrorObject } from '../platform/errors/app-error.js';
import { jsonBoundsProblem } from '../platform/json-bounds.js';
import type { SessionEventBody } from '../stream/events.js';
import { forOwner, wireCorrected, wireOrigin } from '../stream/wire.js';

export type MessageType = 'health' | 'voice-translation' | 'error';

export type ClientMessage =
  | { type: 'health'; data: Record<string, unknown> }
  | { type: 'voice-translation'; action: string; data: Record<string, unknown> };

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; error: AppError };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseClientMessage(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return bad('invalid_data', 'The message is not JSON.', { message_type: null });
  }
  // Bounded before any handler walks it (a glossary nested 5,000 deep once overflowed the stack).
  const tooBig = jsonBoundsProblem(raw);
  if (tooBig) {
    const type = isObject(raw) && typeof raw.type === 'string' ? raw.type : null;
    return bad('invalid_data', tooBig.message, { message_type: type, reason: tooBig.reason, limit: tooBig.limit });
  }
  if (!isObject(raw)) return bad('invalid_data', 'The message must be a JSON object {type, data}.', { message_type: null });
  const type = raw.type;
  const data = raw.data === undefined ? {} : raw.data;
  if (type !== 'health' && type !== 'voice-translation') {
    return bad('internal_error', 'Unknown message type; use "health" or "voice-translation".', {
      message_type: typeof type === 'string' ? type : null,
    });
  }
  if (!isObject(data)) return bad('invalid_data', '`data` must be an object.', { message_type: type });
  if (type === 'health') return { ok: true, message: { type, data } };
  const action = data.action;
  if (typeof action !== 'string' || action === '') {
    return bad('invalid_data', '`data.action` is required.', { message_type: type, action: null });
  }
  return { ok: true, message: { type, action, data } };
}

function bad(code: 'invalid_data' | 'internal_error', message: string, details: Record<string, unknown>): ParseResult {
  return { ok: false, error: new AppError(code, { message, details, variant: 'websocket' }) };
}

export function errorMessage(err: AppError, now: Date): string {
  return JSON.stringify({ type: 'error', data: toErrorObject(err, undefined, now) });
}

export function eventMessage(action: string, payload: object): string {
  return JSON.stringify({ type: 'voice-translation', data: { action, ...payload } });
}

/** The owner's frame for a session event (null: not the owner's; times formatted as the spec's mm:ss). */
export function ownerMessage(e: SessionEventBody): string | null {
  if (!forOwner(e)) return null;
  if (e.event === 'result') return eventMessage('result', { ...e.data, origin: wireOrigin(e.data.origin) });
  if (e.event === 'sentence_corrected') return eventMessage(e.event, wireCorrected(e.data));
  return eventMessage(e.event, e.data);
}

export function healthMessage(payload: Record<string, unknown>): string {
  return JSON.stringify({ type: 'health', data: payload });
}

/** Close codes (4000 range is the application's; documented in the README). */
export const CLOSE = {
  /** Normal end requested by the client. */
  normal: 1000,
  /** Server shutting down (after `service_shutdown`). */
  goingAway: 1001,
  /** Frame larger than the limit (sent by ws itself). */
  tooBig: 1009,
  /** ticket_invalid / ticket_expired / ticket_already_used / missing subprotocol. */
  ticket: 4001,
  /** The ticket's key is refused now (disabled, expired, account blocked, IP not allowed). */
  keyRefused: 4003,
  /** No `start` within the pre-start deadline, or no pong within the keep-alive timeout. */
  timeout: 4008,
  /** The client read too slowly: its queue passed the slow-consumer limit (src/stream/outbox.ts). */
  tooSlow: 4013,
  /** The recording was resumed on another connection (resume_token): this one is closed. */
  resumedElsewhere: 4010,
  /** Message or audio rate limit exceeded repeatedly. */
  rateLimited: 4029,
} as const;
