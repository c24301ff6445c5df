/**
 * Every bus topic and the type of its messages, in one place. Features import the message
 * types from here (and may re-export them); `EventBus.publish` and `subscribe` are typed by
 * topic, so a wrong payload or a misspelt topic is a type error. Topic names with a variable
 * part are template-literal keys (`import.${string}.progress`) built by the helpers below.
 */
import type { SessionEvent } from '../stream/events.js';
import type { FailureSource } from '../tasks/status.js';

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

// --- Tasks: outcomes and force-end of live sessions ---

/** A task failed (the webhook feature turns it into `recording.failed`). */
export const TASK_FAILED_TOPIC = 'task.failed';
/** A task finished processing (the webhook feature sends `recording.completed`). */
export const TASK_COMPLETED_TOPIC = 'task.completed';
/** End the live session of a task now (force-fail of a connected recording). */
export const SESSION_FORCE_END_TOPIC = 'session.force_end';

export interface TaskCompletedEvent {
  task_id: string;
  account_id: string;
  key_id: string;
  name: string;
  duration_ms: number;
  type_source: 'realtime' | 'import';
  transcription_languages: string[] | null;
  translation_languages: string[] | null;
  /** When the task reached this outcome: with task_id, names the outcome (webhook dedupe across workers). */
  at: string;
}

export interface TaskFailedEvent {
  task_id: string;
  account_id: string;
  key_id: string;
  /** `processing` is Parley's value for ordinary failures; the webhook omits it (spec: optional field). */
  failure_source: FailureSource;
  at: string;
}

export interface SessionForceEndEvent {
  task_id: string;
  reason: 'user_forced';
}

// --- Speaker edits of a task (REST), for its live session and broadcasts ---

export const speakerTopic = (taskId: string) => `task.${taskId}.speakers` as const;

export type SpeakerEvent =
  | { event: 'speaker_renamed'; data: { speaker_id: string; new_label: string; affected_sids: number[] } }
  | { event: 'speaker_reassigned'; data: { sid: number; old_speaker_id: string; new_speaker_id: string; new_speaker_label: string } }
  | {
      event: 'speakers_merged';
      data: { source_speaker_id: string; target_speaker_id: string; target_speaker_label: string; affected_sids: number[] };
    };

// --- Import progress (worker publishes, the progress SSE stream forwards) ---

export const progressTopic = (importId: string) => `import.${importId}.progress` as const;

export interface ProgressData {
  import_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  stage: 'converting' | 'transcribing' | 'translating' | 'summarizing' | null;
  progress: number;
  message: string | null;
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

/** Topic name -> message type. */
export interface TopicMap {
  [CREDIT_LOW]: CreditLowEvent;
  [CREDIT_EXHAUSTED]: CreditExhaustedEvent;
  [TASK_COMPLETED_TOPIC]: TaskCompletedEvent;
  [TASK_FAILED_TOPIC]: TaskFailedEvent;
  [SESSION_FORCE_END_TOPIC]: SessionForceEndEvent;
  [speaker: `task.${string}.speakers`]: SpeakerEvent;
  [progress: `import.${string}.progress`]: ProgressEvent;
  [session: `session.${string}.events`]: SessionEvent;
  [viewers: `subtitle.${string}.viewers`]: SubtitleViewersEvent;
}

export type Topic = keyof TopicMap & string;
export type MessageOf<T extends Topic> = TopicMap[T];
