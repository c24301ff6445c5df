import { defineSection, settings } from '../platform/config/settings.js';

/** Live sessions over WebSocket (src/realtime). */
export const realtimeSettings = defineSection({
  maxFrameBytes: settings.int('PARLEY_WS_MAX_FRAME_BYTES', 'Largest WebSocket frame accepted; larger frames close with 1009.', 1_048_576, {
    min: 1024,
  }),
  preStartSeconds: settings.int(
    'PARLEY_WS_PRESTART_SECONDS',
    'Seconds a connection may wait before its first start (then 4008), and after task_complete before another start (then a normal close, 1000).',
    30,
    { min: 1 },
  ),
  pingSeconds: settings.int('PARLEY_WS_PING_SECONDS', 'Interval of WebSocket pings; a missed pong closes with 4008.', 20, { min: 1 }),
  billingMinuteMs: settings.int(
    'PARLEY_REALTIME_BILLING_MINUTE_MS',
    'Length of a billed minute of live audio in milliseconds (60000; tests shorten it).',
    60_000,
    { min: 100 },
  ),
  silenceWarningSeconds: settings.int(
    'PARLEY_WS_SILENCE_WARNING_SECONDS',
    'Seconds before the silence auto-end (start field silenceTimeoutSeconds, default 900) at which stt_silence_warning is sent; at most half the timeout.',
    60,
    { min: 1 },
  ),
  disconnectGraceSeconds: settings.int(
    'PARLEY_WS_DISCONNECT_GRACE_SECONDS',
    'Seconds a recording whose client vanished waits for a resume before it is finalized (then resume_grace_expired). Clients see it as resume_grace_seconds in session_started and resume_ok.',
    30,
    { min: 0 },
  ),
  drainSeconds: settings.int(
    'PARLEY_WS_DRAIN_SECONDS',
    'On shutdown, seconds running recordings may go on before they are finalized (keep below PARLEY_SHUTDOWN_GRACE_MS).',
    5,
    { min: 0 },
  ),
  segmentSeconds: settings.int(
    'PARLEY_WS_SEGMENT_SECONDS',
    'Seconds of live audio per segment written to the blob store as it arrives (another realtime process finishes or resumes the recording from them).',
    5,
    { min: 1, max: 60 },
  ),
  handoverTimeoutSeconds: settings.int(
    'PARLEY_WS_HANDOVER_TIMEOUT_SECONDS',
    'How long a resume on this realtime process waits for the process holding the recording to hand it over (then resume_unavailable).',
    60,
    { min: 1 },
  ),
  sttMaxBacklogMs: settings.int(
    'PARLEY_STT_MAX_BACKLOG_MS',
    'Live recognition backpressure: the most audio (ms) that may wait for recognition in one stream; past it new audio is recorded but not recognized (stt_audio_dropped) until the backlog is under half of it.',
    30_000,
    { min: 50 },
  ),
  recoverAfterSeconds: settings.int(
    'PARLEY_WS_RECOVER_AFTER_SECONDS',
    'A realtime process whose heartbeat or lease is older than this is taken as dead: its recordings are resumed or finished by another realtime process (after the disconnect grace), or recovered at its next start.',
    60,
    { min: 1 },
  ),
});
