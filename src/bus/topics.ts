/**
 * Every bus topic and the type of its messages, in one place. Features import the message
 * types from here (and may re-export them); `EventBus.publish` and `subscribe` are typed by
 * topic, so a wrong payload or a misspelt topic is a type error. Topic names with a variable
 * part are template-literal keys (`import.${string}.progress`) built by the helpers below.
 */
import type { SessionEvent, SpeakerEvent } from '../stream/events.js';

export type { SpeakerEvent };

// --- Billing: credit crossings (the webhooks feature sends credit.low / credit.exhausted) ---

export const CREDIT_LOW = 'credit.low';
export const CREDIT_EXHAUSTED = 'credit.exhausted';

export interface CreditLowEvent {
  accountId: string;
  /** Account balance in points after the charge. */
  balance: number;
  threshold: number;
  at: string;
}

export interface CreditExhaustedEvent {
  accountId: string;
  balance: number;
  /** `charge` (balance reached zero) or `refused` (a recording could not start or continue). */
  cause: 'charge' | 'refused';
  at: string;
}

// --- Tasks: force-end of live sessions (task outcomes are durable: webhook outbox, not the bus) ---

/** End the live session of a task now (force-fail of a connected recording). */
export const SESSION_FORCE_END_TOPIC = 'session.force_end';

export interface SessionForceEndEvent {
  task_id: string;
  reason: 'user_forced';
}

// --- Broadcasts: a revoke ends the host session and the viewers' streams on every process ---

export const BROADCAST_REVOKED_TOPIC = 'broadcast.revoked';

/** A broadcast's caption sinks changed (REST): the node hosting it reloads them (src/broadcasts/sinks/). */
export const BROADCAST_SINKS_TOPIC = 'broadcast.caption_sinks';

export interface BroadcastSinksChangedEvent {
  broadcast_id: string;
}

/** What a broadcast's viewers are sent (src/broadcasts/viewer-events.ts), on `broadcast.<id>.viewers`. */
export const broadcastViewersTopic = (broadcastId: string) => `broadcast.${broadcastId}.viewers` as const;

export interface BroadcastViewerEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface BroadcastRevokedEvent {
  broadcast_id: string;
  token: string;
}

// --- Speaker edits of a task (REST), for its live session and broadcasts ---

export const speakerTopic = (taskId: string) => `task.${taskId}.speakers` as const;

// SpeakerEvent (the message of this topic) is a session event: src/stream/events.ts.

// --- Import progress (worker publishes, the progress SSE stream forwards) ---

export const progressTopic = (importId: string) => `import.${importId}.progress` as const;

export interface ProgressData {
  import_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  stage: 'converting' | 'transcribing' | 'translating' | 'summarizing' | null;
  progress: number;
  message: string | null;
  /** Extension, while pending: the place in the queue (1 = next to start). */
  queue_position?: number;
}

export type ProgressEvent =
  | { event: 'progress'; data: ProgressData }
  | { event: 'completed'; data: { import_id: string; status: 'completed'; progress: 100; task_id: string } }
  | { event: 'failed'; data: { import_id: string; status: 'failed'; error_code: string; error_message: string } };

// --- Live sessions: every event of one session, with its sequence number (src/stream) ---

export const sessionTopic = (taskId: string) => `session.${taskId}.events` as const;

// --- Floating subtitles: the audience of a recording changed (every subtitle stream of it forwards `viewers`) ---

export const subtitleViewersTopic = (taskId: string) => `subtitle.${taskId}.viewers` as const;

export interface SubtitleViewersEvent {
  /** Audience viewers now (the owner not counted). */
  count: number;
  max: number;
}

// --- Live recordings moving between realtime processes (src/realtime/live/handover.ts) ---

/** Asks the realtime process `instanceId` to hand a recording over (a resume on another process). */
export const handoverTopic = (instanceId: string) => `realtime.${instanceId}.handover` as const;
/** The answer to one hand-over request. */
export const handoverReplyTopic = (requestId: string) => `realtime.handover.${requestId}.reply` as const;

export interface HandoverRequest {
  request_id: string;
  token: string;
  key_id: string;
}

/** ok: the recording is parked for the asker to claim; else the refusal the resuming client is sent. */
export type HandoverReply = { ok: true } | { ok: false; code: string; message: string; details: Record<string, unknown> };

/** Topic name -> message type. */
export interface TopicMap {
  [CREDIT_LOW]: CreditLowEvent;
  [CREDIT_EXHAUSTED]: CreditExhaustedEvent;
  [SESSION_FORCE_END_TOPIC]: SessionForceEndEvent;
  [BROADCAST_REVOKED_TOPIC]: BroadcastRevokedEvent;
  [BROADCAST_SINKS_TOPIC]: BroadcastSinksChangedEvent;
  [speaker: `task.${string}.speakers`]: SpeakerEvent;
  [progress: `import.${string}.progress`]: ProgressEvent;
  [session: `session.${string}.events`]: SessionEvent;
  [viewers: `subtitle.${string}.viewers`]: SubtitleViewersEvent;
  [broadcastViewers: `broadcast.${string}.viewers`]: BroadcastViewerEvent;
  [handover: `realtime.${string}.handover`]: HandoverRequest;
  [handoverReply: `realtime.handover.${string}.reply`]: HandoverReply;
}

export type Topic = keyof TopicMap & string;
export type MessageOf<T extends Topic> = TopicMap[T];
