/**
 * The one error registry. Every error code Parley can emit is declared here with its HTTP
 * status, severity, display message and context. Codes come from the interface spec
 * (v1.24.1, "Errors", "Authentication errors" and each endpoint's own codes); a few codes
 * Parley adds for situations the spec leaves open are marked `parley: true`.
 *
 * `status` is null for codes that only travel over WebSocket. `statusBy` holds the
 * per-transport/endpoint exceptions the spec lists (e.g. validation_failed is 400 on the
 * TTS voices endpoint, summary_mode_field_mismatch is 422 over SSE).
 *
 * Retired codes are never reused. docs/errors.md is generated from this file
 * (`npm run docs:errors`) and a test fails when they drift.
 */
export type Severity = 'fatal' | 'error' | 'warning';

/** Where an error is reported: the same code can have a different status per place. */
export type ErrorVariant = 'rest' | 'sse' | 'voices' | 'websocket';

export interface ErrorDefinition {
  readonly status: number | null;
  readonly severity: Severity;
  /** Display text. Clients must not parse it. */
  readonly message: string;
  /** Short area name, reported as `context` in the error object. */
  readonly context: string;
  readonly statusBy?: Partial<Record<ErrorVariant, number>>;
  /** True when Parley defines the code (the spec is silent for that situation). */
  readonly parley?: true;
}

const def = (
  status: number | null,
  severity: Severity,
  context: string,
  message: string,
  extra: Partial<Pick<ErrorDefinition, 'statusBy' | 'parley'>> = {},
): ErrorDefinition => ({ status, severity, context, message, ...extra });

export const ERRORS = {
  // --- Authentication -------------------------------------------------------------
  auth_missing_api_key: def(401, 'fatal', 'authentication', 'An API key is required.'),
  auth_invalid_api_key: def(401, 'fatal', 'authentication', 'The API key is not valid.'),
  auth_invalid_key_format: def(401, 'fatal', 'authentication', 'The API key must be "svc_" followed by 32 characters.'),
  auth_key_expired: def(401, 'fatal', 'authentication', 'The API key has expired.'),
  auth_key_disabled: def(401, 'fatal', 'authentication', 'The API key is disabled.'),
  auth_user_disabled: def(403, 'fatal', 'authentication', 'The user is disabled.'),
  auth_insufficient_credit: def(402, 'fatal', 'billing', 'Insufficient credit.'),
  auth_account_blocked: def(403, 'fatal', 'authentication', 'The account is blocked.'),
  auth_ip_not_allowed: def(403, 'fatal', 'authentication', 'Requests from this IP address are not allowed for this key.'),
  auth_quota_exceeded: def(402, 'fatal', 'billing', 'Not enough credit or budget to start the recording.'),
  auth_account_expired: def(401, 'fatal', 'authentication', 'The account has expired.'), // reserved: never sent
  auth_service_error: def(500, 'fatal', 'authentication', 'The authentication service is unavailable.'),

  // --- Plans and limits -------------------------------------------------------------
  plan_feature_not_allowed: def(403, 'fatal', 'plan', 'Your plan does not include this feature.'),
  concurrency_limit_reached: def(null, 'error', 'plan', 'The concurrent recording limit has been reached.', { statusBy: { rest: 429 } }),
  daily_limit_disconnect: def(null, 'error', 'plan', 'The daily usage threshold was reached; the recording was stopped.'),
  daily_limit_reached: def(null, 'fatal', 'plan', 'The daily usage limit has been reached.'),
  plan_daily_limit_reached: def(402, 'error', 'plan', 'The daily usage limit of your plan has been reached.'),
  too_many_languages: def(null, 'error', 'recording', 'Too many languages.'),

  // --- Tickets and sessions ---------------------------------------------------------
  ticket_invalid: def(401, 'fatal', 'websocket', 'The ticket is not valid.'),
  ticket_expired: def(401, 'fatal', 'websocket', 'The ticket has expired.'),
  ticket_already_used: def(401, 'fatal', 'websocket', 'The ticket has already been used.'),
  ticket_validation_failed: def(401, 'fatal', 'websocket', 'The ticket could not be validated.'),
  session_not_found: def(404, 'error', 'websocket', 'Session not found.'),
  session_expired: def(400, 'error', 'websocket', 'The session has expired.'),
  session_not_started: def(400, 'error', 'websocket', 'The session has not started or has already ended.'),
  session_already_paused: def(400, 'warning', 'websocket', 'The session is already paused.'),
  session_not_paused: def(400, 'warning', 'websocket', 'The session is not paused.'),
  service_shutdown: def(null, 'warning', 'websocket', 'The service is shutting down for maintenance.'),
  // Parley: POST /tasks/{id}/force-fail on a live task ends its session first.
  session_force_ended: def(null, 'fatal', 'websocket', 'The task was marked failed; the recording has ended.', { parley: true }),
  resume_token_invalid: def(null, 'error', 'websocket', 'The resume token is not valid.'),
  resume_grace_expired: def(null, 'error', 'websocket', 'The resume grace period has expired.'),
  resume_ownership_mismatch: def(null, 'error', 'websocket', 'The session belongs to another key.'),
  resume_unavailable: def(null, 'error', 'websocket', 'The session cannot be resumed.'),
  set_speaking_speed_failed: def(400, 'error', 'websocket', 'The speaking speed could not be set.'),

  // --- Speech recognition and audio -------------------------------------------------
  stt_init_failed: def(503, 'fatal', 'stt', 'Speech recognition could not be initialised.'),
  stt_start_failed: def(500, 'fatal', 'stt', 'Speech recognition could not start.'),
  stt_auth_failed: def(500, 'fatal', 'stt', 'The speech recognition provider rejected the credentials.'),
  stt_connection_lost: def(500, 'fatal', 'stt', 'The connection to speech recognition was lost.'),
  stt_quota_exceeded: def(402, 'fatal', 'billing', 'Credit is insufficient; the recording has ended.'),
  stt_silence_timeout: def(null, 'fatal', 'stt', 'No speech was detected for too long; the recording has ended.'),
  stt_silence_warning: def(null, 'warning', 'stt', 'No speech detected; the recording will end soon.'),
  // Live backpressure (docs/live-modes.md): the recording goes on, the audio is kept.
  stt_audio_dropped: def(
    null,
    'warning',
    'stt',
    'Speech recognition fell behind the audio; some audio is recorded but not transcribed until it catches up.',
    { parley: true },
  ),
  audio_invalid_format: def(400, 'error', 'audio', 'The audio format is not valid.'),
  audio_format_unsupported: def(400, 'error', 'audio', 'The audio format is not supported.'),
  audio_process_failed: def(500, 'error', 'audio', 'The audio could not be processed.'),
  audio_decode_failed: def(500, 'error', 'audio', 'The audio could not be decoded; send a fresh WebM container.'),

  // --- Diarization ------------------------------------------------------------------
  diarization_init_failed: def(503, 'fatal', 'diarization', 'Speaker diarization could not be initialised.'),
  diarization_unavailable: def(503, 'fatal', 'diarization', 'Speaker diarization is unavailable.'),
  diarization_start_failed: def(500, 'fatal', 'diarization', 'Speaker diarization could not start.'),
  diarization_failed: def(500, 'error', 'diarization', 'Speaker diarization failed.'),
  diarization_multilang_conflict: def(400, 'error', 'diarization', 'Multi-speaker recognition allows exactly one transcription language.'),

  // --- Recording type restrictions ------------------------------------------------
  record_translation_not_allowed: def(400, 'error', 'recording', 'Recordings of type "record" cannot be translated.'),
  record_tts_not_allowed: def(400, 'error', 'recording', 'Recordings of type "record" cannot use TTS.'),
  record_summary_requires_template: def(
    400,
    'error',
    'recording',
    'A summary for type "record" needs a template or a custom summary mode.',
  ),

  // --- Glossary configuration ----------------------------------------------------
  config_empty: def(400, 'error', 'glossary', 'The glossary configuration is empty.'),
  config_term_too_long: def(400, 'error', 'glossary', 'A glossary entry is too long.'),
  config_too_many_entries: def(400, 'error', 'glossary', 'The glossary has too many entries.'),
  config_too_many_dict_entries: def(400, 'error', 'glossary', 'The translation dictionary has too many entries.'),
  config_invalid_entry: def(400, 'error', 'glossary', 'A glossary entry is not valid.'),
  config_ignored_in_start: def(null, 'warning', 'glossary', 'Glossary settings sent with start are ignored; use the config action.'),
  config_too_many_languages: def(400, 'error', 'glossary', 'The glossary names too many languages.'),
  config_payload_too_large: def(413, 'error', 'glossary', 'The glossary payload is too large.'),

  // --- LLM (summaries, LLM translation) ---------------------------------------------
  llm_init_failed: def(503, 'fatal', 'llm', 'The language model could not be initialised.'),
  llm_timeout: def(504, 'error', 'llm', 'The language model did not answer in time.'),
  llm_rate_limit: def(429, 'warning', 'llm', 'The language model is rate limited; try again shortly.'),
  llm_request_failed: def(500, 'error', 'llm', 'The language model request failed.'),
  llm_provider_error: def(503, 'error', 'llm', 'The language model provider reported an error.'),
  llm_content_filtered: def(400, 'warning', 'llm', 'The content was refused by the content filter.'),
  llm_auth_failed: def(500, 'fatal', 'llm', 'The language model provider rejected the credentials.'),
  llm_deployment_not_found: def(500, 'fatal', 'llm', 'The language model deployment was not found.'),
  llm_quota_exceeded: def(402, 'fatal', 'llm', 'The language model quota is exhausted.'),

  // --- Translation ------------------------------------------------------------------
  translation_service_unavailable: def(null, 'error', 'translation', 'Translation is temporarily unavailable.'),
  translation_failed: def(500, 'error', 'translation', 'The sentence could not be translated.', { parley: true }),
  translation_language_unsupported: def(422, 'error', 'translation', 'No translation engine serves this language pair.', { parley: true }),

  // --- Generic validation -------------------------------------------------------------
  invalid_parameter: def(null, 'error', 'request', 'A parameter is not valid.'),
  invalid_data: def(null, 'error', 'request', 'The data is not valid.'),
  invalid_recognition_mode: def(null, 'error', 'request', 'The recognition mode is not valid.'),
  summary_mode_field_mismatch: def(400, 'error', 'summary', 'The summary fields do not match the summary mode.', {
    statusBy: { sse: 422 },
  }),
  internal_error: def(500, 'error', 'server', 'An internal error occurred.'),
  validation_failed: def(422, 'error', 'request', 'The request is not valid.', { statusBy: { voices: 400 } }),
  too_many_requests: def(429, 'error', 'request', 'Too many requests; retry later.'),
  not_found: def(404, 'error', 'request', 'No such endpoint.', { parley: true }),
  metrics_unauthorized: def(401, 'fatal', 'metrics', 'Reading metrics needs the metrics bearer token.', { parley: true }),
  request_too_large: def(413, 'error', 'request', 'The request body is too large.', { parley: true }),
  request_headers_too_large: def(431, 'error', 'request', 'The request headers are too large.', { parley: true }),
  unsupported_media_type: def(415, 'error', 'request', 'The request content type is not supported.', { parley: true }),

  // --- Tasks and transcripts ---------------------------------------------------------
  recording_not_found: def(404, 'error', 'recording', 'Recording not found.'),
  recording_audio_not_ready: def(425, 'error', 'recording', 'The recording audio is not ready yet; retry shortly.'),
  invalid_processing_status: def(422, 'error', 'recording', 'The recording is not in a state that allows this operation.'),
  speaker_transcript_not_found: def(404, 'error', 'speaker', 'The transcript of this recording was not found.'),
  speaker_diarization_required: def(422, 'error', 'speaker', 'This recording has no speaker diarization.'),
  speaker_name_empty: def(422, 'error', 'speaker', 'The speaker name is empty.'),
  speaker_name_duplicate: def(422, 'error', 'speaker', 'Another speaker already has this name.'),
  speaker_not_found: def(422, 'error', 'speaker', 'Speaker not found.'),
  speaker_sid_not_found: def(422, 'error', 'speaker', 'Sentence not found.'),
  speaker_op_not_allowed_multi_channel: def(422, 'error', 'speaker', 'This operation is not allowed on multi-channel recordings.'),
  merge_speakers_same_id: def(400, 'error', 'speaker', 'Source and target speaker are the same.'),
  transcript_revision_conflict: def(409, 'error', 'recording', 'The transcript was changed concurrently; retry.'),
  storage_upload_failed: def(500, 'error', 'storage', 'Storing the change failed; retry.'),

  // --- Sentence corrections (src/corrections; docs/corrections.md) ---------------------
  sentence_not_found: def(404, 'error', 'correction', 'No final sentence with this id in the transcript.', { parley: true }),
  sentence_text_empty: def(422, 'error', 'correction', 'The corrected text is empty.', { parley: true }),
  sentence_text_too_long: def(422, 'error', 'correction', 'The corrected text is too long.', { parley: true }),
  sentence_revision_conflict: def(
    409,
    'error',
    'correction',
    'The sentence was changed since the revision you edited; reload it and retry.',
    {
      parley: true,
    },
  ),
  sentence_nothing_to_undo: def(409, 'error', 'correction', 'The sentence has no correction to undo.', { parley: true }),

  // --- Imports ----------------------------------------------------------------------
  import_file_too_large: def(413, 'error', 'import', 'The file is too large.'),
  import_invalid_format: def(415, 'error', 'import', 'The file format is not supported; use mp3, wav or m4a.'),
  import_recognition_mode_unsupported: def(422, 'error', 'import', 'Imports support only the single and multi_speaker recognition modes.'),
  import_duration_out_of_range: def(422, 'error', 'import', 'The audio duration is outside the allowed range.'),
  import_not_found: def(404, 'error', 'import', 'Import not found.', { parley: true }),
  PROCESSING_TIMEOUT: def(null, 'error', 'import', 'Processing did not start in time.'),

  // --- Summaries ----------------------------------------------------------------------
  invalid_category: def(400, 'error', 'summary', 'The template category is not valid.'),
  template_not_found: def(404, 'error', 'summary', 'Template not found.'),
  sse_template_not_found: def(404, 'error', 'summary', 'Template not found.'),
  sse_transcript_not_found: def(404, 'error', 'summary', 'Transcript not found.'),
  sse_sentence_not_found: def(404, 'error', 'translation', 'No sentence with this id in the transcript.', { parley: true }),
  summary_text_empty: def(400, 'error', 'summary', 'There is no text to summarize.'),
  summary_text_too_long: def(400, 'error', 'summary', 'The text is too long to summarize.'),
  sse_summary_regeneration_failed: def(500, 'error', 'summary', 'The summary could not be regenerated.'),
  summary_insufficient_credit: def(402, 'error', 'summary', 'Credit is insufficient for the summary.'),

  // --- TTS ----------------------------------------------------------------------------
  tts_voice_not_found: def(404, 'error', 'tts', 'Voice not found.'),
  tts_sample_generation_failed: def(500, 'error', 'tts', 'The voice sample could not be generated.'),
  tts_invalid_language: def(400, 'error', 'tts', 'The TTS language is not valid.'),
  tts_synthesis_failed: def(500, 'error', 'tts', 'The sentence could not be spoken.', { parley: true }),

  // --- Floating subtitles ({error: code} shape) ------------------------------------------
  recording_not_ready: def(425, 'error', 'subtitle', 'The recording is not ready yet; retry shortly.'),
  recording_ended: def(410, 'error', 'subtitle', 'The recording has ended.'),
  invalid_share: def(403, 'error', 'subtitle', 'The share link is not valid.'),
  feed_token_invalid: def(401, 'error', 'subtitle', 'The subtitle feed token is not valid or has expired.', { parley: true }),
  subtitle_audience_full: def(429, 'error', 'subtitle', 'This recording has reached its subtitle audience limit.', { parley: true }),

  // --- Broadcasts -----------------------------------------------------------------------
  broadcast_token_invalid: def(401, 'error', 'broadcast', 'The broadcast link is not valid.'),
  broadcast_token_revoked: def(401, 'error', 'broadcast', 'The broadcast link has been revoked.'),
  broadcast_password_incorrect: def(401, 'error', 'broadcast', 'The password is incorrect.'),
  broadcast_session_not_found: def(404, 'error', 'broadcast', 'The broadcast was not found.'),
  broadcast_session_ended: def(410, 'error', 'broadcast', 'The broadcast has ended.'),
  broadcast_capacity_exceeded: def(503, 'error', 'broadcast', 'The broadcast is full; you are in the queue.'),
  // Parley: the owner operations the spec leaves unshaped (docs/broadcasts.md).
  broadcast_not_found: def(404, 'error', 'broadcast', 'Broadcast not found.', { parley: true }),
  broadcast_not_editable: def(409, 'error', 'broadcast', 'This setting of the broadcast can no longer change.', { parley: true }),
  broadcast_already_hosted: def(null, 'error', 'broadcast', 'Another host connection is streaming this broadcast.', { parley: true }),
  conversation_invalid_speaker: def(null, 'error', 'conversation', 'The conversation speaker is not valid.'),

  // --- Multi-channel (WebSocket only) --------------------------------------------------
  channel_mode_required: def(null, 'error', 'channel', 'channel_mode is required.'),
  invalid_channel_mode: def(null, 'error', 'channel', 'The channel mode is not valid.'),
  channels_required: def(null, 'error', 'channel', 'channels is required.'),
  too_many_channels: def(null, 'error', 'channel', 'Too many channels (max 8).'),
  invalid_channel_id: def(null, 'error', 'channel', 'The channel id is not valid.'),
  channel_language_required: def(null, 'error', 'channel', 'The channel language is required.'),
  channel_language_not_allowed: def(null, 'error', 'channel', 'The channel language is not allowed.'),
  channel_language_mismatch: def(null, 'error', 'channel', 'The channel language does not match.'),
  channel_id_required: def(null, 'error', 'channel', 'channel_id is required.'),
  unknown_channel_id: def(null, 'error', 'channel', 'Unknown channel id.'),
  multichannel_tts_not_allowed: def(null, 'error', 'channel', 'TTS is not available for multi-channel recordings.'),
  multichannel_broadcast_not_allowed: def(null, 'error', 'channel', 'Broadcasts cannot use multi-channel recognition.'),
  multichannel_requires_pcm: def(null, 'error', 'channel', 'Multi-channel recognition requires PCM audio.'),
  multichannel_switch_language_not_allowed: def(null, 'error', 'channel', 'switch_language is not available in multi-channel mode.'),
  channel_id_in_use: def(null, 'error', 'channel', 'The channel id is already in use.'),
  channel_remove_not_allowed: def(null, 'error', 'channel', 'The channel cannot be removed.'),
  channel_action_while_paused: def(null, 'error', 'channel', 'Channel actions are not allowed while paused.'),
  not_multi_channel_session: def(null, 'error', 'channel', 'This is not a multi-channel session.'),
  channel_rebuild_too_frequent: def(null, 'error', 'channel', 'Channel settings change too often.'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** The HTTP status of `code` where it is reported (`variant`), or null when it has none. */
export function statusOf(code: ErrorCode, variant: ErrorVariant = 'rest'): number | null {
  const d: ErrorDefinition = ERRORS[code];
  return d.statusBy?.[variant] ?? d.status;
}
