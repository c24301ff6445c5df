/**
 * The events of the floating-subtitle SSE (the spec names only `viewers` {count, max}; the
 * rest is Parley's design, documented in docs/subtitles.md). They reuse the broadcast viewer
 * SSE's names and fields wherever the meaning is the same, so one client can render both:
 *
 * - `connected` {task_id, role (`owner` or `audience`), transcription_languages, translation_languages}
 * - `origin` {sid, text, language, is_final, start_time (mm:ss from the recording's start), speaker_id}
 * - `translation` {sid, language, text, is_final}
 * - `viewers` {count, max}: the audience (owner not counted) and its limit
 * - `speaker_renamed`, `speaker_reassigned`, `speakers_merged`: speaker edits (and the live
 *   diarizer's corrections of earlier finals), the broadcast viewer's shapes
 * - `channel_added`, `channel_removed`, `channel_language_set`: multi_channel changes (as the owner gets them)
 * - `sentence_corrected`: a final sentence corrected or a correction undone (docs/corrections.md), as the owner gets it
 * - `paused`, `resumed` {message}: the recording was paused or resumed
 * - `ended` {task_id, message}: the last event; the server closes the stream after it
 * - `error` {error_code, message}: the feed token stopped working (share revoked) before `ended`
 *
 * Each `origin`, `translation`, speaker and channel event carries `id:` = the session's sequence number, so a client
 * can tell a replayed event from one it already has.
 */
import { type SessionEvent, startMsOf } from '../stream/events.js';
import { clock, wireCorrected } from '../stream/wire.js';

export interface SubtitleEvent {
  event: string;
  data: Record<string, unknown>;
  /** The session sequence number (SSE `id:`), for events that come from the session stream. */
  id?: number;
}

/** What a session event becomes on the subtitle stream (null: not shown there). */
export function toSubtitleEvent(e: SessionEvent): SubtitleEvent | null {
  switch (e.event) {
    case 'result': {
      const o = e.data.origin;
      return {
        event: 'origin',
        id: e.seq,
        data: {
          sid: o.sid,
          text: o.text,
          language: o.language,
          is_final: o.is_final,
          start_time: clock(startMsOf(o)),
          speaker_id: o.speaker_id,
        },
      };
    }
    case 'translation':
      return {
        event: 'translation',
        id: e.seq,
        data: { sid: e.data.sid, language: e.data.language, text: e.data.text, is_final: e.data.is_final },
      };
    case 'speaker_renamed':
    case 'speaker_reassigned':
    case 'speakers_merged':
    case 'channel_added':
    case 'channel_removed':
    case 'channel_language_set':
      return { event: e.event, id: e.seq, data: { ...e.data } };
    case 'sentence_corrected':
      return { event: e.event, id: e.seq, data: { ...wireCorrected(e.data) } };
    case 'status':
      if (e.data.status === 'paused') return { event: 'paused', data: { message: 'The recording is paused.' } };
      if (e.data.status === 'started' && e.seq > 1) return { event: 'resumed', data: { message: 'The recording resumed.' } };
      if (e.data.status === 'ended') return endedEvent(e.task_id);
      return null;
    default:
      return null;
  }
}

export function endedEvent(taskId: string): SubtitleEvent {
  return { event: 'ended', data: { task_id: taskId, message: 'The recording has ended.' } };
}
