/** The server events of the live WebSocket protocol and its connection-level errors (src/realtime/asyncapi.ts). */
import { type TSchema, Type } from 'typebox';
import { SentenceCorrectedSchema } from '../../corrections/schemas.js';
import type { ErrorCode } from '../../platform/errors/registry.js';
import { SpeakerReassigned, SpeakerRenamed, SpeakersMerged, SpokenSentence } from '../../platform/http/event-schemas.js';
import { Open, Opt, RESUME_GRACE, S } from './schema.js';

const Origin = Type.Object({
  sid: Type.Integer(),
  language: Type.String(),
  text: Type.String(),
  is_final: Type.Boolean(),
  speaker_id: Type.Union([Type.String(), Type.Null()]),
  detected_language: Type.Union([Type.String(), Type.Null()]),
  start_time: S('mm:ss'),
  end_ms: Opt(Type.Integer()),
});

/** Server events: `{type: "voice-translation", data: {action: <event>, ...fields}}`. */
export const EVENTS: Record<string, { summary: string; fields: TSchema }> = {
  session_started: {
    summary: 'The recording started (task_id names its task; resume_token lets a new connection resume it)',
    fields: Type.Object({
      session_id: Type.String(),
      task_id: Type.String(),
      recording_type: Type.String(),
      recognition_mode: Type.String(),
      message: Type.String(),
      resume_token: Opt(S('Parley extension: send it in a start on a new connection to resume this recording after a drop')),
      resume_grace_seconds: Opt(Type.Number({ description: RESUME_GRACE })),
      phase: Opt(S('broadcast')),
      viewer_count: Opt(Type.Integer()),
      queue_count: Opt(Type.Integer()),
      peak_viewers: Opt(Type.Integer()),
      total_viewers: Opt(Type.Integer()),
    }),
  },
  resume_ok: {
    summary: 'A dropped recording was resumed on this connection; the events missed while away follow (spec: payload not shown)',
    fields: Type.Object({
      session_id: Type.String(),
      task_id: Type.String(),
      recording_type: Type.String(),
      recognition_mode: Type.String(),
      status: S('started or paused'),
      received_ms: Type.Integer({ description: 'Audio the server holds: send what was captured after it' }),
      missed_events: Type.Integer({ description: 'How many missed events follow, in order' }),
      message: Type.String(),
      resume_grace_seconds: Type.Number({ description: RESUME_GRACE }),
    }),
  },
  result: {
    summary:
      'Recognized text: interim (is_final false) then final; the first final of a sid counts. The next sid may show before the previous final; a final of empty text withdraws a sentence that came to nothing',
    fields: Type.Object({ origin: Origin }),
  },
  translation: {
    summary: 'A translation of a sentence (interim ones precede the final)',
    fields: Type.Object({ sid: Type.Integer(), language: Type.String(), text: Type.String(), is_final: Type.Boolean() }),
  },
  status: {
    summary: 'started, paused, stopping, uploading, processing, ended (last event of a recording)',
    fields: Type.Object({ status: Type.String(), task_id: Opt(Type.String()) }),
  },
  segment_uploaded: {
    summary: 'The audio of the recording is stored',
    fields: Type.Object({ task_id: Type.String(), duration_ms: Type.Integer() }),
  },
  task_complete: { summary: 'Processing ended; the concurrency slot is free', fields: Open('task_id, processing_status') },
  summary_done: {
    summary: 'The summary is written',
    fields: Open('task_id, summary_id, summary_mode, summary_template, summary_plain_text, tokens_used {input, output}'),
  },
  summary_error: {
    summary: 'No summary (summary_insufficient_credit, llm_content_filtered, ...)',
    fields: Type.Object({ task_id: Type.String(), error_code: Type.String(), message: Type.String() }),
  },
  config_updated: { summary: 'The glossary was replaced', fields: Open('counts per field') },
  name_updated: { summary: 'The recording was renamed', fields: Open('name') },
  summary_updated: { summary: 'The end-of-recording summary settings changed', fields: Open('summary fields') },
  retranslate_done: { summary: 'A retranslate action finished', fields: Open('sids, target_languages, counts') },
  language_switched: { summary: 'Recognition continues in another language', fields: Open('language') },
  channel_added: { summary: 'multi_channel: a channel was added', fields: Open('channel_id, language') },
  channel_removed: { summary: 'multi_channel: a channel was removed', fields: Open('channel_id') },
  channel_language_set: { summary: 'multi_channel: a channel changed language', fields: Open('channel_id, language') },
  // The same payloads as the SSE streams' (one definition: platform/http/event-schemas.ts).
  speaker_renamed: { summary: 'A speaker was renamed', fields: SpeakerRenamed },
  speaker_reassigned: {
    summary:
      'A sentence moved to another speaker: a reassign_speaker (or REST) edit, or the live diarizer correcting an earlier final of a multi_speaker session (source diarization)',
    fields: SpeakerReassigned,
  },
  speakers_merged: { summary: 'Two speakers were merged', fields: SpeakersMerged },
  sentence_corrected: {
    summary:
      'Parley: a final sentence was corrected or a correction undone (correct_sentence, undo_correction, or REST): replace its text and translations; revision counts its changes (docs/corrections.md)',
    fields: SentenceCorrectedSchema,
  },
  tts_ready: { summary: 'Speech of a translated sentence', fields: SpokenSentence },
  tts_stopped: { summary: 'Queued speech was dropped', fields: Type.Object({ dropped: Type.Integer() }) },
  tts_mode_changed: { summary: 'The TTS mode changed', fields: Type.Object({ tts_mode: Type.String() }) },
  tts_updated: {
    summary: 'The session TTS settings now in force',
    fields: Open('tts_enabled, tts_language, tts_voice, tts_mode, speaking_rate'),
  },
  conversation_mode_changed: { summary: 'Conversation: the mode changed', fields: Open('conversation_mode') },
  speaker_language_set: { summary: 'Conversation: a speaker language changed', fields: Open('speaker_id, language') },
  phase_changed: { summary: 'Broadcast: live now', fields: Open('phase, message') },
  announcement: { summary: 'Broadcast: the announcement was sent', fields: Open('message, translations') },
  standby: { summary: 'Broadcast: the standby message changed', fields: Open('message, translations') },
};

/** Errors not tied to one action (connection, keep-alive, session-level). */
export const CONNECTION_ERRORS: ErrorCode[] = [
  'ticket_invalid',
  'ticket_expired',
  'ticket_already_used',
  'ticket_validation_failed',
  'auth_key_disabled',
  'auth_key_expired',
  'auth_account_blocked',
  'auth_ip_not_allowed',
  'internal_error',
  'invalid_data',
  'too_many_requests',
  'service_shutdown',
  'session_force_ended',
  'stt_quota_exceeded',
  'stt_silence_timeout',
  'stt_silence_warning',
  'stt_connection_lost',
  'daily_limit_disconnect',
  'translation_service_unavailable',
  'translation_failed',
];
