/**
 * The typed Parley client, browser-safe (fetch, a WebSocket constructor, SSE from fetch
 * bodies). Node helpers (files, ffmpeg PCM, the `ws` package) are in ./node.ts.
 *
 *   const parley = new ParleyClient({ baseUrl: 'http://localhost:8080', apiKey });
 *   const tasks = await parley.tasks.list();
 */
export type { LiveActions, LiveEvents, Operations } from './api-types.js';
export { type ClientOptions, ParleyClient, type Unwrap } from './client.js';
export { type ErrorObject, ParleyError } from './errors.js';
export { type CallInput, type ErrorCodeOf, type EventsOf, type OperationKey, REALTIME_OPERATIONS, type Success } from './http.js';
export type { Glossary, ImportInput, SummaryInput, SummaryTranslateInput, TtsStreamInput } from './inputs.js';
export { LiveApi, type LiveEvent, LiveSession, type StartOptions, type WebSocketConstructor, type WebSocketLike } from './live.js';
export { readSseFrames, type SseEvent, SseStream, type UnknownEventName } from './sse.js';
