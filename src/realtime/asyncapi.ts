/**
 * The WebSocket protocol as an AsyncAPI 3.0 document, served at `/asyncapi.json` (rendered by
 * `/asyncapi`, a page with no build step). It lists every client action the connection
 * dispatches and every event it sends, with their fields and the error codes each action can
 * bring. test/realtime/asyncapi.test.ts compares it with the protocol code (the action
 * handlers of connection.ts, the events emitted under src/realtime and src/stream) and with
 * a real connection, so an action or event added without a line here fails the suite.
 */
import { type TSchema, Type } from 'typebox';
import { viewerChannelDoc } from '../broadcasts/viewer-asyncapi.js';
import { SentenceCorrectedSchema } from '../corrections/schemas.js';
import { ERRORS, type ErrorCode } from '../platform/errors/registry.js';
import { SpeakerReassigned, SpeakerRenamed, SpeakersMerged, SpokenSentence } from '../platform/http/event-schemas.js';
import { INTERFACE_VERSION } from '../version/routes.js';

const S = (description: string) => Type.String({ description });
/** The resume grace as clients see it (docs/live-modes.md "Resume"). */
const RESUME_GRACE =
  'Parley extension: seconds a recording waits for a resume after its connection dropped (PARLEY_WS_DISCONNECT_GRACE_SECONDS, default 30); later, resume_grace_expired. Absent for broadcasts.';
const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Langs = (description: string) => Type.Array(Type.String(), { description });

interface ActionDoc {
  summary: string;
  fields: Record<string, TSchema>;
  errors: ErrorCode[];
  /** Events the action answers with (besides errors). */
  replies?: string[];
  since?: string;
}

const CHANNEL_ERRORS: ErrorCode[] = [
  'not_multi_channel_session',
  'channel_id_required',
  'unknown_channel_id',
  'invalid_channel_id',
  'channel_id_in_use',
  'channel_language_required',
  'channel_language_not_allowed',
  'channel_language_mismatch',
  'channel_remove_not_allowed',
  'channel_action_while_paused',
  'channel_rebuild_too_frequent',
  'too_many_channels',
  'plan_feature_not_allowed',
];
const SPEAKER_ERRORS: ErrorCode[] = [
  'session_not_started',
  'speaker_diarization_required',
  'speaker_not_found',
  'speaker_name_empty',
  'speaker_name_duplicate',
  'invalid_parameter',
];

/** Client actions: `{type: "voice-translation", data: {action, ...fields}}`. */
export const ACTIONS: Record<string, ActionDoc> = {
  start: {
    summary: 'Start a recording (or resume one with resume_token). Refusals leave the connection open for another start.',
    fields: {
      type: Opt(S('transcribe (default), conversation, record, broadcast')),
      transcription_languages: Opt(Langs('1-10 language codes (plan may lower it)')),
      translation_languages: Opt(Langs('Target languages')),
      realtime_translation: Opt(Type.Boolean()),
      audio_format: Opt(S('pcm (16 kHz mono s16le, binary frames) or webm (MediaRecorder chunks)')),
      recognition_mode: Opt(S('single, multi_speaker, multi_language, multi_channel')),
      name: Opt(Type.String({ maxLength: 60 })),
      summary_template: Opt(S('Template slug')),
      summary_mode: Opt(S('builtin or custom')),
      summary_prompt: Opt(Type.String({ maxLength: 3000 })),
      summary_prompt_slug: Opt(Type.String({ maxLength: 64 })),
      summary_language: Opt(Type.String({ maxLength: 20 })),
      summary_plain_text: Opt(Type.Boolean()),
      tts_enabled: Opt(Type.Boolean()),
      tts_language: Opt(S('One of translation_languages')),
      tts_voice: Opt(Type.String()),
      tts_mode: Opt(S('sync or async')),
      tts_config: Opt(Open('language -> {voice, speaking_rate 0.5-2.0}')),
      conversation_mode: Opt(Type.String()),
      speakers: Opt(Type.Array(Open('speaker'), { description: 'Exactly 2 when given' })),
      options: Opt(Type.Object({ profanity_handling: Opt(S('mask (default), remove, show')), speaking_speed: Opt(Type.String()) })),
      silenceTimeoutSeconds: Opt(Type.Integer()),
      channel_mode: Opt(Type.String()),
      channels: Opt(Type.Array(Open('{channel_id, language}'))),
      broadcast_token: Opt(S('Broadcast share token; type broadcast only')),
      broadcast_phase: Opt(S('standby or live (default)')),
      standby_message: Opt(Type.String()),
      resume_token: Opt(S('From session_started of a dropped connection: resumes that recording')),
      terminology: Opt(Open('Ignored in start (config_ignored_in_start): send config')),
    },
    replies: ['session_started', 'resume_ok'],
    errors: [
      'invalid_parameter',
      'invalid_data',
      'invalid_recognition_mode',
      'summary_mode_field_mismatch',
      'diarization_multilang_conflict',
      'record_translation_not_allowed',
      'record_tts_not_allowed',
      'record_summary_requires_template',
      'too_many_languages',
      'conversation_invalid_speaker',
      'config_ignored_in_start',
      'auth_quota_exceeded',
      'auth_insufficient_credit',
      'plan_feature_not_allowed',
      'concurrency_limit_reached',
      'daily_limit_reached',
      'stt_init_failed',
      'diarization_unavailable',
      'service_shutdown',
      'channel_mode_required',
      'invalid_channel_mode',
      'channels_required',
      'too_many_channels',
      'multichannel_requires_pcm',
      'multichannel_tts_not_allowed',
      'multichannel_broadcast_not_allowed',
      'broadcast_token_invalid',
      'broadcast_already_hosted',
      'resume_token_invalid',
      'resume_grace_expired',
      'resume_ownership_mismatch',
      'resume_unavailable',
    ],
  },
  audio: {
    summary: 'Audio as base64 in JSON (binary frames carry the same bytes without JSON)',
    fields: { audio: S('base64 audio in the start audio_format') },
    errors: ['session_not_started', 'audio_invalid_format', 'audio_decode_failed', 'audio_process_failed', 'stt_audio_dropped'],
  },
  pause: {
    summary: 'Pause the recording (audio is not recognized or billed)',
    fields: {},
    replies: ['status'],
    errors: ['session_not_started', 'session_already_paused'],
  },
  resume: { summary: 'Resume a paused recording', fields: {}, replies: ['status'], errors: ['session_not_started', 'session_not_paused'] },
  stop: {
    summary: 'Stop: the last finals arrive, then status uploading, processing, ended and task_complete',
    fields: {},
    replies: ['status', 'task_complete'],
    errors: ['session_not_started'],
  },
  config: {
    summary: 'Replace the session glossary (terminology, fuzzy_correction, translation_dict) or clear it',
    fields: {
      terminology: Opt(Open('language -> [{term}]')),
      fuzzy_correction: Opt(Open('language -> [{correct, incorrect[], case_insensitive}]')),
      translation_dict: Opt(Open('target language -> [{source, target, case_sensitive}]')),
      clear: Opt(Type.Boolean()),
    },
    replies: ['config_updated'],
    errors: [
      'session_not_started',
      'config_empty',
      'config_term_too_long',
      'config_too_many_entries',
      'config_too_many_dict_entries',
      'config_invalid_entry',
    ],
  },
  set_name: {
    summary: 'Rename the recording',
    fields: { name: Type.String({ maxLength: 60 }) },
    replies: ['name_updated'],
    errors: ['session_not_started', 'invalid_parameter'],
  },
  set_summary: {
    summary: 'Change what is summarized at the end (start summary fields) or turn it off (enabled false)',
    fields: {
      enabled: Opt(Type.Boolean()),
      summary_mode: Opt(Type.String()),
      summary_template: Opt(Type.String()),
      summary_prompt: Opt(Type.String()),
      summary_prompt_slug: Opt(Type.String()),
      summary_language: Opt(Type.String()),
      summary_plain_text: Opt(Type.Boolean()),
    },
    replies: ['summary_updated'],
    errors: ['session_not_started', 'invalid_parameter', 'summary_mode_field_mismatch', 'record_summary_requires_template'],
  },
  retranslate: {
    summary: 'Translate final sentences again (sid, sids or all) into target_languages',
    fields: {
      sid: Opt(Type.Integer()),
      sids: Opt(Type.Array(Type.Integer())),
      target_languages: Opt(Langs('Among translation_languages')),
    },
    replies: ['translation', 'retranslate_done'],
    errors: ['session_not_started', 'invalid_parameter', 'record_translation_not_allowed'],
  },
  switch_language: {
    summary: 'Recognize another of the transcription_languages from now on',
    fields: { language: Type.String() },
    replies: ['language_switched'],
    errors: ['session_not_started', 'invalid_parameter', 'multichannel_switch_language_not_allowed'],
  },
  add_channel: {
    summary: 'multi_channel: add a channel',
    fields: { channel_id: Type.Integer(), language: Type.String() },
    replies: ['channel_added'],
    errors: ['session_not_started', ...CHANNEL_ERRORS],
    since: '1.10.0',
  },
  remove_channel: {
    summary: 'multi_channel: remove a channel',
    fields: { channel_id: Type.Integer() },
    replies: ['channel_removed'],
    errors: ['session_not_started', ...CHANNEL_ERRORS],
    since: '1.10.0',
  },
  set_channel_language: {
    summary: 'multi_channel: change the language of a channel (one change per 5 s per channel)',
    fields: { channel_id: Type.Integer(), language: Type.String() },
    replies: ['channel_language_set'],
    errors: ['session_not_started', ...CHANNEL_ERRORS],
    since: '1.10.0',
  },
  rename_speaker: {
    summary: 'Rename a speaker of this recording',
    fields: { speaker_id: Type.String({ maxLength: 100 }), new_label: Type.String({ maxLength: 100 }) },
    replies: ['speaker_renamed'],
    errors: SPEAKER_ERRORS,
  },
  reassign_speaker: {
    summary: 'Move one final sentence to another speaker',
    fields: { sid: Type.Integer(), target_speaker_id: Type.String({ maxLength: 100 }) },
    replies: ['speaker_reassigned'],
    errors: [...SPEAKER_ERRORS, 'speaker_sid_not_found', 'speaker_op_not_allowed_multi_channel'],
  },
  merge_speakers: {
    summary: 'Merge one speaker into another',
    fields: { source_speaker_id: Type.String({ maxLength: 100 }), target_speaker_id: Type.String({ maxLength: 100 }) },
    replies: ['speakers_merged'],
    errors: [...SPEAKER_ERRORS, 'merge_speakers_same_id', 'speaker_op_not_allowed_multi_channel'],
  },
  correct_sentence: {
    summary:
      'Parley: correct a final sentence (text 1-2000 characters; revision optional, the one you edited): retranslated into the session translation languages (charged as a one-sentence retranslate), stored, and sent to every audience',
    fields: { sid: Type.Integer({ minimum: 1 }), text: Type.String(), revision: Opt(Type.Integer({ minimum: 0 })) },
    replies: ['sentence_corrected'],
    errors: [
      'session_not_started',
      'validation_failed',
      'sentence_not_found',
      'sentence_text_empty',
      'sentence_text_too_long',
      'sentence_revision_conflict',
      'auth_insufficient_credit',
      'auth_quota_exceeded',
    ],
  },
  undo_correction: {
    summary: 'Parley: back to the text and translations the latest correction of a sentence replaced (free)',
    fields: { sid: Type.Integer({ minimum: 1 }), revision: Opt(Type.Integer({ minimum: 0 })) },
    replies: ['sentence_corrected'],
    errors: ['session_not_started', 'validation_failed', 'sentence_not_found', 'sentence_revision_conflict', 'sentence_nothing_to_undo'],
  },
  tts_play: {
    summary: 'Speak final sentences from sid (length up to 20) in the session TTS language; needed in async tts_mode',
    fields: { sid: Type.Integer(), length: Opt(Type.Integer({ minimum: 1, maximum: 20, default: 1 })) },
    replies: ['tts_ready'],
    errors: ['session_not_started', 'record_tts_not_allowed', 'invalid_data'],
  },
  tts_stop: {
    summary: 'Drop the speech queued and being synthesized',
    fields: {},
    replies: ['tts_stopped'],
    errors: ['session_not_started', 'record_tts_not_allowed'],
  },
  tts_mode: {
    summary: 'sync (speak each final translation) or async (only on tts_play); case-sensitive',
    fields: { tts_mode: S('sync or async') },
    replies: ['tts_mode_changed'],
    errors: ['session_not_started', 'record_tts_not_allowed', 'invalid_data'],
  },
  set_tts: {
    summary: 'Turn session TTS on or off and choose language, voice and tts_config',
    fields: {
      tts_enabled: Opt(Type.Boolean()),
      tts_language: Opt(S('One of translation_languages')),
      tts_voice: Opt(Type.String()),
      tts_config: Opt(Open('language -> {voice, speaking_rate}')),
    },
    replies: ['tts_updated'],
    errors: ['session_not_started', 'record_tts_not_allowed', 'invalid_data', 'invalid_parameter', 'tts_voice_not_found'],
  },
  set_speaking_speed: {
    summary: 'Change the speaking speed of session TTS',
    fields: { speaking_speed: Type.String() },
    replies: ['tts_updated'],
    errors: ['session_not_started', 'record_tts_not_allowed', 'set_speaking_speed_failed'],
  },
  start_speaking: {
    summary: 'Conversation (manual mode): this speaker talks now; answered with status speaking',
    fields: { speaker_id: Type.String() },
    replies: ['status'],
    errors: ['session_not_started', 'invalid_data', 'invalid_parameter', 'conversation_invalid_speaker'],
  },
  stop_speaking: {
    summary: 'Conversation (manual mode): the speaker stopped; answered with status listening',
    fields: {},
    replies: ['status'],
    errors: ['session_not_started', 'invalid_data', 'invalid_parameter', 'conversation_invalid_speaker'],
  },
  switch_conversation_mode: {
    summary: 'Conversation: change conversation_mode',
    fields: { conversation_mode: Type.String() },
    replies: ['conversation_mode_changed'],
    errors: ['session_not_started', 'invalid_data', 'invalid_parameter', 'conversation_invalid_speaker'],
  },
  set_speaker_language: {
    summary: 'Conversation: the language a speaker talks',
    fields: { speaker_id: Type.String(), language: Type.String() },
    replies: ['speaker_language_set'],
    errors: ['session_not_started', 'invalid_data', 'invalid_parameter', 'conversation_invalid_speaker'],
  },
  broadcast_go_live: {
    summary: 'Broadcast host: standby -> live',
    fields: {},
    replies: ['phase_changed'],
    errors: ['session_not_started'],
  },
  broadcast_announcement: {
    summary: 'Broadcast host: a message to every viewer',
    fields: { message: Type.String(), translations: Opt(Open('language -> text')) },
    replies: ['announcement'],
    errors: ['session_not_started', 'invalid_parameter'],
  },
  set_standby_message: {
    summary: 'Broadcast host: the message viewers see in standby',
    fields: { message: Type.String(), translations: Opt(Open('language -> text')) },
    replies: ['standby'],
    errors: ['session_not_started', 'invalid_parameter'],
  },
};

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

const ErrorData = Type.Object({
  error_code: Type.String(),
  severity: S('fatal, error, warning'),
  message: S('Display text; do not parse'),
  context: Type.String(),
  sid: Opt(Type.Integer({ description: 'Sentence-level: the session continues' })),
  timestamp: Type.String(),
  details: Type.Union([Open('details'), Type.Null()]),
});

const envelope = (action: string, fields: TSchema) =>
  Type.Object({
    type: Type.Literal('voice-translation'),
    data: Type.Object(
      { action: Type.Literal(action), ...((fields as { properties?: Record<string, TSchema> }).properties ?? {}) },
      {
        additionalProperties: true,
      },
    ),
  });

export function asyncApiDocument() {
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const ref = (name: string) => ({ $ref: `#/channels/live/messages/${name}` });
  for (const [name, a] of Object.entries(ACTIONS)) {
    messages[`action.${name}`] = {
      name,
      title: `${name} (client action)`,
      summary: a.summary,
      payload: envelope(name, Type.Object(a.fields)),
      'x-errors': a.errors.map((c) => ({ code: c, severity: ERRORS[c].severity, message: ERRORS[c].message })),
      ...(a.replies ? { 'x-replies': a.replies } : {}),
      ...(a.since ? { 'x-since': a.since } : {}),
    };
    operations[`send_${name}`] = {
      action: 'receive',
      channel: { $ref: '#/channels/live' },
      summary: a.summary,
      messages: [ref(`action.${name}`)],
      ...(a.replies ? { 'x-replies': a.replies } : {}),
    };
  }
  for (const [name, e] of Object.entries(EVENTS)) {
    messages[`event.${name}`] = { name, title: `${name} (server event)`, summary: e.summary, payload: envelope(name, e.fields) };
    operations[`on_${name}`] = {
      action: 'send',
      channel: { $ref: '#/channels/live' },
      summary: e.summary,
      messages: [ref(`event.${name}`)],
    };
  }
  messages.health = {
    name: 'health',
    title: 'health (both ways)',
    summary:
      'Application keep-alive: send {type: "health", data: {}}; the server answers {type: "health", data: {action: "pong", state, timestamp}}',
    payload: Type.Object({ type: Type.Literal('health'), data: Open('action pong, state, timestamp (server)') }),
  };
  messages.error = {
    name: 'error',
    title: 'error (server)',
    summary:
      'Any failure: {type: "error", data: <error object>}. A rejected start leaves the connection open; fatal without sid ends the session.',
    payload: Type.Object({ type: Type.Literal('error'), data: ErrorData }),
    'x-errors': CONNECTION_ERRORS.map((c) => ({ code: c, severity: ERRORS[c].severity, message: ERRORS[c].message })),
  };
  operations.health = { action: 'receive', channel: { $ref: '#/channels/live' }, messages: [ref('health')] };
  operations.on_error = { action: 'send', channel: { $ref: '#/channels/live' }, messages: [ref('error')] };
  // The broadcast viewers' caption stream (SSE) is documented beside it (src/broadcasts/viewer-asyncapi.ts).
  const viewer = viewerChannelDoc();
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Parley live WebSocket',
      version: INTERFACE_VERSION,
      description:
        'Get a ticket from POST {base_url}/api/v1/auth/ticket (X-API-Key), then connect to {realtime_url}/ws with the subprotocol ticket.<TICKET> (Sec-WebSocket-Protocol). Every message is JSON {type, data}; client actions and server events are type voice-translation with data.action. Audio goes as binary frames (or the audio action). Close codes: 4001 ticket, 4003 key refused, 4008 timeout, 4013 too slow, 4029 rate limited, 1001 shutdown. The channel "viewer" is the broadcast viewers\' caption stream (server-sent events, no API key).',
    },
    servers: {
      realtime: {
        host: '{realtime_host}',
        protocol: 'wss',
        pathname: '/ws',
        description: 'The real-time host ({realtime_url}); may differ from the REST host',
        variables: { realtime_host: { default: 'localhost:8080' } },
        security: [{ $ref: '#/components/securitySchemes/ticket' }],
      },
      viewers: viewer.server,
    },
    channels: {
      live: { address: '/ws', title: 'One live session per connection', servers: [{ $ref: '#/servers/realtime' }], messages },
      viewer: viewer.channel,
    },
    operations: { ...operations, ...viewer.operations },
    components: {
      securitySchemes: {
        ticket: {
          type: 'httpApiKey',
          name: 'Sec-WebSocket-Protocol',
          in: 'header',
          description: 'The value ticket.<TICKET>; a ticket is single use and valid 60 seconds',
        },
      },
    },
  };
}
