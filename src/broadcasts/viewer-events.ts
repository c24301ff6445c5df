/**
 * What a broadcast's viewers are sent, as published by the host's node on the broadcast's
 * viewer topic (host-session.ts) and read by every node's viewer streams. `event` is the
 * spec's viewer event name ("SSE: broadcast viewer"); display messages are added per viewer
 * language by the stream, never published (the host's own texts, announcements and standby
 * messages, travel with their translations).
 */
export interface ViewerEvent {
  event: string;
  data: Record<string, unknown>;
}

export const viewerTopic = (broadcastId: string) => `broadcast.${broadcastId}.viewers`;
