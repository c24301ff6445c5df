/** The `data` of each webhook event, exactly as the spec's Webhooks table lists it. */
import { oneDecimal } from '../billing/events.js';

export type WebhookEvent =
  | 'recording.completed'
  | 'recording.failed'
  | 'import.completed'
  | 'import.failed'
  | 'credit.low'
  | 'credit.exhausted'
  | 'webhook.verify';

/** General text of recording.failed (spec: "fixed general text"). */
export const RECORDING_FAILED_TEXT = 'Processing of the recording failed.';

export const eventData = {
  recordingCompleted(d: {
    task_id: string;
    name: string;
    duration_ms: number;
    type_source: 'realtime' | 'import';
    transcription_languages: string[] | null;
    translation_languages: string[] | null;
  }) {
    return {
      task_id: d.task_id,
      name: d.name,
      duration_ms: d.duration_ms,
      type_source: d.type_source,
      transcription_languages: d.transcription_languages ?? [],
      translation_languages: d.translation_languages ?? [],
    };
  },
  /** failure_source only for user_forced and no_audio (spec: optional field). */
  recordingFailed(d: { task_id: string; failure_source?: string | null }) {
    const out: { task_id: string; error: string; failure_source?: 'user_forced' | 'no_audio' } = {
      task_id: d.task_id,
      error: RECORDING_FAILED_TEXT,
    };
    if (d.failure_source === 'user_forced' || d.failure_source === 'no_audio') out.failure_source = d.failure_source;
    return out;
  },
  importCompleted(d: { import_id: string; task_id: string; name: string; duration_ms: number }) {
    return { import_id: d.import_id, task_id: d.task_id, name: d.name, duration_ms: d.duration_ms };
  },
  importFailed(d: { import_id: string; error_code: string; error_message: string }) {
    return { import_id: d.import_id, error_code: d.error_code, error_message: d.error_message };
  },
  creditLow(d: { balance: number; threshold: number }) {
    return { balance: oneDecimal(d.balance), threshold: oneDecimal(d.threshold) };
  },
  creditExhausted(d: { balance: number }) {
    return { balance: oneDecimal(d.balance) };
  },
  /** The spec does not show verify's payload; Parley sends the key id so a receiver can tell which key. */
  webhookVerify(d: { key_id: string }) {
    return { key_id: d.key_id };
  },
};
