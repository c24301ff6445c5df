/**
 * What a broadcast's viewers are sent, as published by the host's node on the broadcast's
 * viewer topic (host-session.ts) and read by every node's viewer streams. `event` is the
 * spec's viewer event name ("SSE: broadcast viewer"); display messages are added per viewer
 * language by the stream, never published (the host's own texts, announcements and standby
 * messages, travel with their translations).
 */
export type { BroadcastViewerEvent as ViewerEvent } from '../bus/topics.js';
export { broadcastViewersTopic as viewerTopic } from '../bus/topics.js';

import type { BroadcastViewerEvent } from '../bus/topics.js';

/** Final sentences a late joiner gets (each with its translations); interims never. */
export const REPLAY_SENTENCES = 5;

/**
 * The viewer topic's retained log: every non-interim event, enough for the latest
 * REPLAY_SENTENCES finals with up to 12 translations each and the state events among them;
 * forgotten two hours after the last event.
 */
export const VIEWER_REPLAY_RETAIN = { max: REPLAY_SENTENCES * 13 + 20, ttlSeconds: 2 * 3600 };

/**
 * The `error` event viewers get for one sentence (spec "SSE: broadcast viewer": error_code,
 * severity, message, context, sid, translation_language, timestamp; no request_id, which
 * only connection-stage errors carry). Never the error's internal details.
 */
export function sentenceErrorEvent(
  e: { code: string; severity: string; message: string; context: string },
  sid: number,
  translationLanguage: string | null,
  now: Date,
): BroadcastViewerEvent {
  return {
    event: 'error',
    data: {
      error_code: e.code,
      severity: e.severity,
      message: e.message,
      context: e.context,
      sid,
      ...(translationLanguage ? { translation_language: translationLanguage } : {}),
      timestamp: now.toISOString(),
    },
  };
}

export function isInterimCaption(e: BroadcastViewerEvent): boolean {
  return (e.event === 'origin' || e.event === 'translation') && e.data.is_final === false;
}

/** A final origin of empty text: the sentence was withdrawn (stream/events.ts isWithdrawal); nothing for late joiners. */
export function isWithdrawnCaption(e: BroadcastViewerEvent): boolean {
  return e.event === 'origin' && e.data.is_final === true && e.data.text === '';
}
