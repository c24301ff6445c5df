/**
 * What a broadcast's viewers are sent, as published by the host's node on the broadcast's
 * viewer topic (host-session.ts) and read by every node's viewer streams. `event` is the
 * spec's viewer event name ("SSE: broadcast viewer"); display messages are added per viewer
 * language by the stream, never published (the host's own texts, announcements and standby
 * messages, travel with their translations).
 */
export type { BroadcastViewerEvent as ViewerEvent } from '../bus/topics.js';
export { broadcastViewersTopic as viewerTopic } from '../bus/topics.js';
