/**
 * The edge where a session event becomes what a client reads. In the stream, times are
 * numbers (milliseconds from the recording's start); here a result's or a corrected
 * sentence's start becomes the spec's mm:ss `start_time`. The owner's WebSocket
 * (src/realtime/protocol.ts ownerMessage), the floating-subtitle SSE (src/subtitles/events.ts),
 * the REST corrections' answer and the broadcast subscriber (src/broadcasts/host-captions.ts,
 * from go-live) format with these.
 */
import {
  type ResultOrigin,
  type ResultStart,
  type SentenceCorrected,
  type SessionEventBody,
  startMsOf,
  type WireSentenceCorrected,
} from './events.js';

/** mm:ss of a time in milliseconds (minutes past 99 as they are). */
export function clock(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** `start_time` mm:ss in place of `start_ms` (an older node's `start_time` as it was), the other fields in their order. */
function withClock(fields: ResultStart & object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'start_ms' || k === 'start_time') out.start_time = clock(startMsOf(fields));
    else out[k] = v;
  }
  return out;
}

/** A result's origin as clients get it. */
export function wireOrigin(origin: ResultOrigin): Record<string, unknown> {
  return withClock(origin);
}

/** A `sentence_corrected` event as clients get it (the fields keep their order, start_time last: the JSON is as before). */
export function wireCorrected(c: SentenceCorrected): WireSentenceCorrected {
  return withClock(c) as unknown as WireSentenceCorrected;
}

/** Events only the audiences beyond the owner get from the stream (the owner's client has them as its own errors). */
export function forOwner(e: SessionEventBody): boolean {
  return e.event !== 'sentence_error';
}
