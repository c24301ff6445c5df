/**
 * In-session TTS settings: parsed from `start` (invalid_parameter with details.field and
 * details.valid_values, like every start field) and from the TTS actions (`set_tts`,
 * `tts_mode`: invalid_data; `set_speaking_speed`: set_speaking_speed_failed). The speech itself
 * is made by session-tts.ts. Decisions: docs/live-modes.md "In-session TTS".
 */
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';

export const TTS_MODES = ['sync', 'async'] as const;
export type TtsMode = (typeof TTS_MODES)[number];
/** options.speaking_speed and set_speaking_speed: named speeds and the speaking rate each means. */
export const SPEAKING_SPEEDS = ['slow', 'normal', 'fast'] as const;
export const SPEAKING_RATE: Record<(typeof SPEAKING_SPEEDS)[number], number> = { slow: 0.8, normal: 1.0, fast: 1.25 };
export const MIN_RATE = 0.5;
export const MAX_RATE = 2.0;

export interface TtsSettings {
  enabled: boolean;
  /** One of the translation languages: TTS speaks the translations into it. */
  language: string;
  /** voice_name, or null for the language's default voice. */
  voice: string | null;
  mode: TtsMode;
  /** 0.5..2.0 (tts_config.speaking_rate, else options.speaking_speed). */
  speakingRate: number;
}

/** What the engines here offer for speech (start validation asks through it). */
export interface VoiceQuery {
  /** voice_names of the synthesizer serving `language`, or null when none does. */
  ttsVoices(language: string): string[] | null;
}

class Invalid extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly validValues?: readonly unknown[],
  ) {
    super(message);
  }
}

/** A speaking rate from tts_config.speaking_rate or a speaking speed (name or number). */
export function rateOf(value: unknown, field: string): number {
  if (typeof value === 'string' && (SPEAKING_SPEEDS as readonly string[]).includes(value)) {
    return SPEAKING_RATE[value as (typeof SPEAKING_SPEEDS)[number]];
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= MIN_RATE && value <= MAX_RATE) return value;
  throw new Invalid(field, `${field} must be one of ${SPEAKING_SPEEDS.join(', ')} or a number from ${MIN_RATE} to ${MAX_RATE}.`, [
    ...SPEAKING_SPEEDS,
  ]);
}

function modeOf(value: unknown, field: string): TtsMode {
  if (typeof value === 'string' && (TTS_MODES as readonly string[]).includes(value)) return value as TtsMode;
  throw new Invalid(field, `${field} must be one of ${TTS_MODES.join(', ')} (case-sensitive).`, TTS_MODES);
}

/**
 * The settings a start or set_tts asks for, on top of `current`. `translation` is the
 * session's translation languages (tts_language must be one of them).
 */
function merge(
  data: Record<string, unknown>,
  current: TtsSettings | null,
  translation: readonly string[],
  engines: VoiceQuery,
  speakingSpeed: unknown,
): TtsSettings | null {
  const enabled = data.tts_enabled === undefined || data.tts_enabled === null ? (current?.enabled ?? false) : data.tts_enabled;
  if (typeof enabled !== 'boolean') throw new Invalid('tts_enabled', 'tts_enabled must be true or false.', [true, false]);
  const mentioned = ['tts_language', 'tts_voice', 'tts_mode', 'tts_config'].some((f) => data[f] !== undefined && data[f] !== null);
  if (!enabled && !mentioned && !current) return null;
  let language = current?.language ?? null;
  if (data.tts_language !== undefined && data.tts_language !== null) {
    const tag = typeof data.tts_language === 'string' ? normalizeLanguage(data.tts_language) : null;
    if (!tag || !translation.includes(tag)) {
      throw new Invalid('tts_language', 'tts_language must be one of the translation languages.', translation);
    }
    language = tag;
  }
  language ??= translation[0] ?? null;
  if (language === null) throw new Invalid('tts_language', 'TTS speaks the translations: give translation_languages.', translation);
  const voices = engines.ttsVoices(language);
  if (voices === null) {
    const served = translation.filter((l) => engines.ttsVoices(l) !== null);
    throw new Invalid('tts_language', `No speech synthesizer here speaks "${language}".`, served);
  }
  let voice = current && current.language === language ? current.voice : null;
  if (data.tts_voice !== undefined && data.tts_voice !== null) {
    if (typeof data.tts_voice !== 'string' || !voices.includes(data.tts_voice)) {
      throw new Invalid('tts_voice', `tts_voice must be a voice of ${language}.`, voices);
    }
    voice = data.tts_voice;
  }
  const mode = data.tts_mode === undefined || data.tts_mode === null ? (current?.mode ?? 'sync') : modeOf(data.tts_mode, 'tts_mode');
  let speakingRate = current?.speakingRate ?? (speakingSpeed === undefined ? 1 : rateOf(speakingSpeed, 'options.speaking_speed'));
  const config = data.tts_config;
  if (config !== undefined && config !== null) {
    if (typeof config !== 'object' || Array.isArray(config)) throw new Invalid('tts_config', 'tts_config must be an object.');
    const c = config as Record<string, unknown>;
    if (c.speaking_rate !== undefined) {
      if (typeof c.speaking_rate !== 'number' || !(c.speaking_rate >= MIN_RATE && c.speaking_rate <= MAX_RATE)) {
        throw new Invalid('tts_config.speaking_rate', `speaking_rate must be a number from ${MIN_RATE} to ${MAX_RATE}.`);
      }
      speakingRate = c.speaking_rate;
    }
    if (c.voice !== undefined && c.voice !== null && data.tts_voice === undefined) {
      if (typeof c.voice !== 'string' || !voices.includes(c.voice))
        throw new Invalid('tts_config.voice', `voice must be a voice of ${language}.`, voices);
      voice = c.voice;
    }
  }
  return { enabled, language, voice, mode, speakingRate };
}

function asError(err: unknown, code: ErrorCode, action?: string): AppError {
  if (!(err instanceof Invalid)) throw err;
  const details: Record<string, unknown> = { field: err.field };
  if (err.validValues) details.valid_values = [...err.validValues];
  if (action) details.action = action;
  return new AppError(code, { variant: 'websocket', message: err.message, details });
}

/** The start's TTS settings (null: no TTS asked), or the invalid_parameter to answer. */
export function startTts(
  data: Record<string, unknown>,
  translation: readonly string[],
  engines: VoiceQuery,
  speakingSpeed: unknown,
): TtsSettings | null | AppError {
  try {
    return merge(data, null, translation, engines, speakingSpeed);
  } catch (err) {
    return asError(err, 'invalid_parameter');
  }
}

/** set_tts: the new settings, or invalid_data naming the field. */
export function updateTts(data: Record<string, unknown>, current: TtsSettings | null, translation: readonly string[], engines: VoiceQuery) {
  try {
    return merge(data, current, translation, engines, undefined) ?? current;
  } catch (err) {
    return asError(err, 'invalid_data', 'set_tts');
  }
}

/** tts_mode action: `sync` or `async`, anything else invalid_data (spec). */
export function parseTtsMode(data: Record<string, unknown>): TtsMode | AppError {
  try {
    return modeOf(data.tts_mode, 'tts_mode');
  } catch (err) {
    return asError(err, 'invalid_data', 'tts_mode');
  }
}

/** set_speaking_speed: a speed name or rate, else set_speaking_speed_failed. */
export function parseSpeakingSpeed(data: Record<string, unknown>): number | AppError {
  try {
    return rateOf(data.speaking_speed, 'speaking_speed');
  } catch (err) {
    return asError(err, 'set_speaking_speed_failed', 'set_speaking_speed');
  }
}

/** The settings as clients see them. */
export function ttsJson(s: TtsSettings | null) {
  return s
    ? { tts_enabled: s.enabled, tts_language: s.language, tts_voice: s.voice, tts_mode: s.mode, speaking_rate: s.speakingRate }
    : { tts_enabled: false, tts_language: null, tts_voice: null, tts_mode: 'sync', speaking_rate: 1 };
}
