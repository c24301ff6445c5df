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

export function isInterimCaption(e: BroadcastViewerEvent): boolean {
  return (e.event === 'origin' || e.event === 'translation') && e.data.is_final === false;
}
