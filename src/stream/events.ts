/**
 * The events of one live session as every audience sees them (owner WebSocket, floating
 * subtitles, broadcasts; any node). `event` and `data` are exactly what the owner's
 * WebSocket sends as `{type: 'voice-translation', data: {action: event, ...data}}`; `seq`
 * numbers the session's events from 1 without gaps (a subscriber that sees a jump knows the
 * bus lost messages); `task_id` names the session.
 */
import type { SentenceErrorEvent } from './sentence-errors.js';

/** A speaker edit made over REST on a task (also published on `task.<id>.speakers`). */
export type SpeakerEvent =
  | { event: 'speaker_renamed'; data: { speaker_id: string; new_label: string; affected_sids: number[] } }
  | {
      event: 'speaker_reassigned';
      data: {
        sid: number;
        old_speaker_id: string;
        new_speaker_id: string;
        new_speaker_label: string;
        /** Extension: `diarization` when the live diarizer corrected an earlier final (absent for edits). */
        source?: 'diarization';
      };
    }
  | {
      event: 'speakers_merged';
      data: { source_speaker_id: string; target_speaker_id: string; target_speaker_label: string; affected_sids: number[] };
    };

/** multi_channel: a channel as the channel events list it (the session's channels after the change). */
export interface ChannelInfo {
  channel_id: number;
  language: string;
  label: string | null;
}

/** multi_channel actions of the owner (src/realtime/channel-actions.ts), seen by every audience. */
export type ChannelEvent =
  | {
      event: 'channel_added';
      data: { task_id: string; channel_id: number; language: string; label: string | null; channels: ChannelInfo[] };
    }
  | { event: 'channel_removed'; data: { task_id: string; channel_id: number; channels: ChannelInfo[] } }
  | {
      event: 'channel_language_set';
      data: { task_id: string; channel_id: number; language: string; previous_language: string; channels: ChannelInfo[] };
    };

/**
 * Where a result (or a corrected sentence) starts. In the stream: `start_ms`, milliseconds from
 * the recording's start; the edges that serialize for a client (wire.ts) format it as the
 * spec's mm:ss `start_time`. Events published by a node from before this field (a rolling
 * upgrade: the bus's retained log, a resume's gap) carry `start_time` only; startMsOf reads both.
 */
export type ResultStart = { start_ms: number; start_time?: never } | { start_time: string; start_ms?: never };

export type ResultOrigin = {
  sid: number;
  language: string;
  text: string;
  is_final: boolean;
  speaker_id: string | null;
  detected_language: string | null;
  /** Extension: the audio position (ms from the recording's start) the result covers up to. */
  end_ms: number;
  /** Extension, multi_channel: the channel the result was heard on. */
  channel_id?: number;
} & ResultStart;

export interface ResultData {
  origin: ResultOrigin;
}

/** Milliseconds from the recording's start at which a result starts (whole seconds from an older node's mm:ss or h:mm:ss). */
export function startMsOf(origin: ResultStart): number {
  if (typeof origin.start_ms === 'number') return origin.start_ms;
  const parts = String(origin.start_time).split(':').map(Number);
  if (parts.some((p) => !Number.isFinite(p))) return 0;
  return parts.reduce((acc, p) => acc * 60 + p, 0) * 1000;
}

export interface TranslationData {
  sid: number;
  language: string;
  text: string;
  is_final: boolean;
}

/**
 * `started` (resume), `paused`, `stopping` (stop asked), `uploading` and `processing`
 * (finalization), and `ended`: the last event of a session, after its last final and
 * translation. Finalization statuses and `ended` carry task_id.
 */
export type SessionStatus = 'started' | 'paused' | 'stopping' | 'uploading' | 'processing' | 'ended';

/** What a correction or undo changed (src/corrections): the `sentence_corrected` event's fields but its start. */
export interface CorrectionFields {
  task_id: string;
  sid: number;
  /** The sentence's revision after the change (0 is the text as recognized). */
  revision: number;
  kind: 'correction' | 'undo';
  text: string;
  previous_text: string;
  /** Every translation of the sentence after the change (retranslated, or restored by an undo). */
  translations: Record<string, string>;
  /** Languages whose translation failed (key present: translated but failed). */
  translation_errors: Record<string, string>;
  speaker_id: string | null;
}

/**
 * The event of a correction or undo in the stream (`sentence_corrected`): the sentence's start
 * as `start_ms`, formatted as mm:ss `start_time` at the edges (wire.ts wireCorrected), as results are.
 */
export type SentenceCorrected = CorrectionFields & ResultStart;

/** `sentence_corrected` as clients read it (the owner's WebSocket, floating subtitles, the REST answer's body). */
export type WireSentenceCorrected = CorrectionFields & { start_time: string };

export type SessionEventBody =
  | { event: 'result'; data: ResultData }
  | { event: 'sentence_corrected'; data: SentenceCorrected }
  | { event: 'translation'; data: TranslationData }
  | { event: 'status'; data: { status: SessionStatus; task_id?: string } }
  | SentenceErrorEvent
  | SpeakerEvent
  | ChannelEvent;

export type SessionEvent = SessionEventBody & { seq: number; task_id: string };

/** Interim results are the only events a slow subscriber may lose (a later one supersedes them). */
export function isInterim(e: SessionEventBody): boolean {
  return e.event === 'result' && !e.data.origin.is_final;
}

/**
 * A final of empty text: the recognizer withdrew a sentence it showed interims of (it came to
 * nothing). Screens drop the sentence; a late joiner, who never saw it, does not get it.
 */
export function isWithdrawal(e: SessionEventBody): boolean {
  return e.event === 'result' && e.data.origin.is_final && e.data.origin.text === '';
}

/** The event that ends a session's stream. */
export function isEnd(e: SessionEventBody): boolean {
  return e.event === 'status' && e.data.status === 'ended';
}

/** Events for who watches now: a late joiner's replay and a resumed owner's gap never hold them. */
export function isTransient(e: SessionEventBody): boolean {
  return isInterim(e) || isWithdrawal(e) || e.event === 'sentence_error';
}
