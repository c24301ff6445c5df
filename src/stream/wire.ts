/**
 * The edge where a session event becomes what a client reads. In the stream, times are
 * numbers (milliseconds from the recording's start); here a result's start becomes the
 * spec's mm:ss `start_time`. The owner's WebSocket (src/realtime/protocol.ts ownerMessage),
 * the floating-subtitle SSE (src/subtitles/events.ts) and the broadcast subscriber
 * (src/broadcasts/host-session.ts) format with these.
 */
import { type ResultOrigin, type SessionEventBody, startMsOf } from './events.js';

/** mm:ss of a time in milliseconds (minutes past 99 as they are). */
export function clock(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** A result's origin as clients get it: `start_time` mm:ss in place of `start_ms`, the other fields in their order. */
export function wireOrigin(origin: ResultOrigin): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(origin)) {
    if (k === 'start_ms' || k === 'start_time') out.start_time = clock(startMsOf(origin));
    else out[k] = v;
  }
  return out;
}

/** Events only the audiences beyond the owner get from the stream (the owner's client has them as its own errors). */
export function forOwner(e: SessionEventBody): boolean {
  return e.event !== 'sentence_error';
}
