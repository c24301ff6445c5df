/**
 * The broadcast fields of a WebSocket `start` (spec "Shaped actions", start (broadcast)), as
 * a pure function: `broadcast_token` (required), `audio_format` (required), `broadcast_phase`
 * (`standby` or `live`, lowercase only; absent, null or empty means live),
 * `standby_message`, `tts_config`, `summary_template`. Languages, speaker diarization and the
 * name come from the channel; language fields sent with the start are ignored. A refusal is
 * an AppError the connection sends; the connection stays open.
 */
import { AppError } from '../platform/errors/app-error.js';
import { parseTtsConfig, type RuleContext, type TtsSetting } from './rules.js';
import { CHANNEL_TOKEN } from './secrets.js';

export const BROADCAST_PHASES = ['standby', 'live'] as const;
export const AUDIO_FORMATS = ['pcm', 'webm'] as const;
export const MAX_STANDBY_MESSAGE = 500;
const MAX_TEMPLATE = 50;

export interface BroadcastStart {
  token: string;
  audioFormat: (typeof AUDIO_FORMATS)[number];
  phase: (typeof BROADCAST_PHASES)[number];
  standbyMessage: string | null;
  /** Overrides the channel's TTS settings for this session (null: the channel's). */
  ttsConfig: Record<string, TtsSetting> | null;
  /** Overrides the channel's summary template (null: the channel's). */
  summaryTemplate: string | null;
}

const ws = { variant: 'websocket' as const };
const invalid = (field: string, message: string, validValues?: readonly unknown[]) =>
  new AppError('invalid_parameter', { ...ws, message, details: validValues ? { field, valid_values: [...validValues] } : { field } });

export function validateBroadcastStart(
  data: Record<string, unknown>,
  ctx: Pick<RuleContext, 'voices'>,
): { ok: true; start: BroadcastStart } | { ok: false; error: AppError } {
  try {
    return { ok: true, start: check(data, ctx) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err };
    throw err;
  }
}

function check(data: Record<string, unknown>, ctx: Pick<RuleContext, 'voices'>): BroadcastStart {
  const token = data.broadcast_token;
  if (token === undefined || token === null || token === '') throw invalid('broadcast_token', 'A broadcast start needs broadcast_token.');
  if (typeof token !== 'string' || !CHANNEL_TOKEN.test(token)) {
    throw new AppError('broadcast_token_invalid', { ...ws, details: { field: 'broadcast_token' } });
  }
  const af = data.audio_format;
  if (af === undefined || af === null || af === '') {
    throw invalid('audio_format', 'A broadcast start needs audio_format.', AUDIO_FORMATS);
  }
  if (!(AUDIO_FORMATS as readonly unknown[]).includes(af)) {
    throw new AppError('audio_format_unsupported', {
      ...ws,
      message: `audio_format must be one of ${AUDIO_FORMATS.join(', ')} (case-sensitive).`,
      details: { field: 'audio_format', valid_values: [...AUDIO_FORMATS] },
    });
  }
  const rawPhase = data.broadcast_phase;
  let phase: BroadcastStart['phase'] = 'live';
  if (rawPhase !== undefined && rawPhase !== null && rawPhase !== '') {
    if (typeof rawPhase !== 'string' || !(BROADCAST_PHASES as readonly string[]).includes(rawPhase)) {
      throw invalid('broadcast_phase', 'broadcast_phase must be "standby" or "live" (lowercase).', BROADCAST_PHASES);
    }
    phase = rawPhase as BroadcastStart['phase'];
  }
  let standbyMessage: string | null = null;
  if (data.standby_message !== undefined && data.standby_message !== null) {
    if (typeof data.standby_message !== 'string') throw invalid('standby_message', 'standby_message must be a string.');
    const m = data.standby_message.trim();
    if ([...m].length > MAX_STANDBY_MESSAGE)
      throw invalid('standby_message', `standby_message is longer than ${MAX_STANDBY_MESSAGE} characters.`);
    standbyMessage = m === '' ? null : m;
  }
  let ttsConfig: Record<string, TtsSetting> | null = null;
  if (data.tts_config !== undefined && data.tts_config !== null) {
    try {
      ttsConfig = parseTtsConfig(data.tts_config, ctx);
    } catch (err) {
      if (err instanceof AppError) throw invalid(String(err.details?.field ?? 'tts_config'), err.message);
      throw err;
    }
  }
  let summaryTemplate: string | null = null;
  if (data.summary_template !== undefined && data.summary_template !== null) {
    if (typeof data.summary_template !== 'string' || data.summary_template.trim().length > MAX_TEMPLATE) {
      throw invalid('summary_template', `summary_template must be a template slug of at most ${MAX_TEMPLATE} characters.`);
    }
    summaryTemplate = data.summary_template.trim() || null;
  }
  return { token, audioFormat: af as BroadcastStart['audioFormat'], phase, standbyMessage, ttsConfig, summaryTemplate };
}

/** A host text (announcement, standby message): 1 to MAX_STANDBY_MESSAGE characters, trimmed. */
export function hostText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || [...value.trim()].length > MAX_STANDBY_MESSAGE) {
    throw new AppError('invalid_parameter', {
      ...ws,
      message: `${field} must be a text of 1 to ${MAX_STANDBY_MESSAGE} characters.`,
      details: { field },
    });
  }
  return value.trim();
}

/** Given translations of a host text: a map of language to text. */
export function translationsOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw new AppError('invalid_parameter', {
      ...ws,
      message: 'translations must map a language to a text.',
      details: { field: 'translations' },
    });
  }
  return value as Record<string, string>;
}
