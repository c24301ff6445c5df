/**
 * `start` validation as a pure function (spec "Shaped actions" and "Start validation").
 * The first problem found is returned as an AppError; the recording does not start and
 * the connection stays open. What engines serve is asked through `EngineQuery`, so the
 * rules are tested without engines. Plan and credit checks happen after this (they read
 * the database).
 */

import type { RecognizerNeed, Refusal } from '../engines/needs.js';
import { refusalError } from '../engines/refusal.js';
import { baseLanguage, normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';
import { TASK_NAME_MAX, taskNameProblem } from '../tasks/name.js';
import { type ChannelSpec, parseChannelStart } from './channel-spec.js';
import { CONVERSATION_MODES, type ConversationStart, checkConversation, conversationLanguages } from './conversation.js';
import { SPEAKING_SPEEDS, startTts, TTS_MODES, type TtsSettings, type VoiceQuery } from './tts-settings.js';

export const RECORDING_TYPES = ['transcribe', 'conversation', 'record', 'broadcast'] as const;
export const SUPPORTED_TYPES = ['transcribe', 'conversation', 'record'] as const;
export const RECOGNITION_MODES = ['single', 'multi_speaker', 'multi_language', 'multi_channel'] as const;
export const AUDIO_FORMATS = ['pcm', 'webm'] as const;
export const PROFANITY = ['mask', 'remove', 'show'] as const;
export const SUMMARY_MODES = ['builtin', 'custom'] as const;
export const MAX_TRANSCRIPTION_LANGUAGES = 10;
export const MAX_TRANSLATION_LANGUAGES = 12;
export const MAX_SUMMARY_LANGUAGE = 20;
export const MAX_SUMMARY_PROMPT = 3000;
export const MAX_SUMMARY_PROMPT_SLUG = 64;
/** Glossary fields (those of `config` and the import form, and common other names) are not taken at start. */
const GLOSSARY_FIELDS = [
  'terminology',
  'fuzzy_correction',
  'translation_dict',
  'glossary',
  'glossary_terms',
  'glossary_entries',
  'dictionary',
  'glossary_config',
];

export interface EngineQuery extends Partial<VoiceQuery> {
  /** Languages a streaming recognizer serves (for the error's valid_values). */
  transcriptionLanguages(): string[];
  servesTranscription(language: string): boolean;
  /** Why no streaming recognizer meets the need (null when one does). */
  streamingRefusal(need: RecognizerNeed): Refusal | null;
  /** Targets reachable from `from` (for valid_values). */
  translationTargets(from: string): string[];
  servesTranslation(from: string, to: string): boolean;
}

export interface StartRequest {
  /** `broadcast` only through a broadcast start (the audiences port, ports.ts, builds the rest from the channel). */
  type: (typeof SUPPORTED_TYPES)[number] | 'broadcast';
  transcriptionLanguages: string[];
  translationLanguages: string[];
  realtimeTranslation: boolean;
  audioFormat: (typeof AUDIO_FORMATS)[number];
  recognitionMode: 'single' | 'multi_speaker' | 'multi_language' | 'multi_channel';
  /** multi_channel: the channels at start (channel-spec.ts); null in other modes. */
  channels: ChannelSpec[] | null;
  name: string | null;
  summary: null | {
    mode: (typeof SUMMARY_MODES)[number];
    template: string | null;
    prompt: string | null;
    promptSlug: string | null;
    language: string | null;
    plainText: boolean;
  };
  ttsEnabled: boolean;
  /** Conversation recordings: the two speakers and the mode (conversation.ts). */
  conversation: ConversationStart | null;
  /** In-session TTS (session-tts.ts), null when not asked for. */
  tts: TtsSettings | null;
  profanityHandling: (typeof PROFANITY)[number];
  speakingSpeed: (typeof SPEAKING_SPEEDS)[number];
  silenceTimeoutSeconds: number;
}

export type StartResult = { ok: true; start: StartRequest; warnings: AppError[] } | { ok: false; error: AppError };

/**
 * multi_speaker: one language (diarization_multilang_conflict), then a streaming recognizer
 * with diarization for it, or a live diarizer beside a plain one (diarization_unavailable
 * naming what is missing).
 */
function checkMultiSpeaker(transcription: string[], engines: EngineQuery): void {
  if (transcription.length > 1) {
    fail('diarization_multilang_conflict', 'Multi-speaker recognition allows exactly one transcription language.', {
      field: 'transcription_languages',
      max: 1,
      received: transcription.length,
    });
  }
  const language = transcription[0] as string;
  const refusal = engines.streamingRefusal({ language, diarization: true });
  if (refusal)
    throw new Reject(
      refusalError('diarization_unavailable', refusal, { variant: 'websocket', details: { field: 'recognition_mode', language } }),
    );
}

/**
 * multi_language: a streaming recognizer that serves every transcription language and tells
 * them apart (engine capability `languageDetection`), so each utterance is recognized in its
 * language. Refused with invalid_recognition_mode naming what is missing (the registry's
 * refusal: `details.missing`, e.g. `language_detection`), never recognized in a guessed language.
 * One language has nothing to tell apart: it runs as `single` does.
 */
function checkMultiLanguage(type: string, transcription: string[], engines: EngineQuery): void {
  if (type === 'conversation') {
    fail('invalid_recognition_mode', 'A conversation recognizes each speaker in its own language (start_speaking); use "single".', {
      field: 'recognition_mode',
      valid_values: ['single', 'multi_speaker'],
    });
  }
  if (transcription.length < 2) return;
  const refusal = engines.streamingRefusal({ language: transcription[0] as string, languages: transcription, interimResults: true });
  if (refusal)
    throw new Reject(
      refusalError('invalid_recognition_mode', refusal, {
        variant: 'websocket',
        details: { field: 'recognition_mode', languages: transcription, valid_values: ['single'] },
      }),
    );
}

class Reject extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
  }
}

const fail = (code: ErrorCode, message: string, details: Record<string, unknown>): never => {
  throw new Reject(new AppError(code, { variant: 'websocket', message, details }));
};

const invalid = (field: string, message: string, validValues?: readonly unknown[]): never =>
  fail('invalid_parameter', message, validValues ? { field, valid_values: [...validValues] } : { field });

function oneOf<T extends string>(data: Record<string, unknown>, field: string, values: readonly T[], fallback: T, label = field): T {
  const v = data[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    return invalid(label, `${field} must be one of ${values.join(', ')} (case-sensitive).`, values);
  }
  return v as T;
}

function optionalString(data: Record<string, unknown>, field: string, max: number): string | null {
  const v = data[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') return invalid(field, `${field} must be a string.`);
  const trimmed = v.trim();
  if (trimmed === '') return null; // whitespace-only counts as not provided
  if (trimmed.length > max) return invalid(field, `${field} is longer than ${max} characters.`);
  return trimmed;
}

function optionalBoolean(data: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const v = data[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') return invalid(field, `${field} must be true or false.`, [true, false]);
  return v;
}

function languageList(data: Record<string, unknown>, field: string): string[] {
  const v = data[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return invalid(field, `${field} must be an array of language tags.`);
  const out: string[] = [];
  for (const item of v) {
    const tag = typeof item === 'string' ? normalizeLanguage(item) : null;
    if (!tag) return invalid(field, `${field} contains "${String(item)}", which is not a language tag.`);
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}

export function validateStart(
  data: Record<string, unknown>,
  engines: EngineQuery,
  maxTranscription = MAX_TRANSCRIPTION_LANGUAGES,
): StartResult {
  try {
    return { ok: true, ...check(conversationLanguages(data), engines, maxTranscription) };
  } catch (err) {
    if (err instanceof Reject) return { ok: false, error: err.error };
    throw err;
  }
}

function check(data: Record<string, unknown>, engines: EngineQuery, maxTranscription: number) {
  const warnings: AppError[] = [];
  const type = oneOf(data, 'type', RECORDING_TYPES, 'transcribe');
  if (type === 'broadcast') {
    invalid('type', `Recording type "${type}" starts with a broadcast_token; use transcribe, conversation or record.`, SUPPORTED_TYPES);
  }
  if (data.broadcast_token !== undefined && data.broadcast_token !== null) {
    invalid('broadcast_token', 'broadcast_token is allowed only with type "broadcast".');
  }
  // multi_speaker and multi_language are checked against the engines once the languages are known.
  const mode = oneOf(data, 'recognition_mode', RECOGNITION_MODES, 'single');
  const af = data.audio_format;
  if (af !== undefined && af !== null && !(AUDIO_FORMATS as readonly unknown[]).includes(af)) {
    fail('audio_format_unsupported', `audio_format must be one of ${AUDIO_FORMATS.join(', ')} (case-sensitive).`, {
      field: 'audio_format',
      valid_values: [...AUDIO_FORMATS],
    });
  }
  const audioFormat = oneOf(data, 'audio_format', AUDIO_FORMATS, 'pcm');
  if (mode === 'multi_channel' && audioFormat !== 'pcm') {
    fail('multichannel_requires_pcm', 'multi_channel takes interleaved PCM only (audio_format "pcm").', {
      field: 'audio_format',
      valid_values: ['pcm'],
    });
  }
  const options = data.options ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) invalid('options', 'options must be an object.');
  const opts = options as Record<string, unknown>;
  const profanityHandling = oneOf(opts, 'profanity_handling', PROFANITY, 'mask', 'options.profanity_handling');
  const speakingSpeed = oneOf(opts, 'speaking_speed', SPEAKING_SPEEDS, 'normal', 'options.speaking_speed');
  const conversationMode = data.conversation_mode === undefined ? null : oneOf(data, 'conversation_mode', CONVERSATION_MODES, 'manual');
  if (conversationMode !== null && type !== 'conversation') {
    invalid('conversation_mode', 'conversation_mode applies only to recordings of type "conversation".', CONVERSATION_MODES);
  }
  const ttsMode = data.tts_mode === undefined ? null : oneOf(data, 'tts_mode', TTS_MODES, 'sync');
  const name = optionalString(data, 'name', TASK_NAME_MAX);
  const nameProblem = name === null ? null : taskNameProblem(name);
  if (nameProblem) invalid('name', `name ${nameProblem}.`);
  const summaryLanguage = optionalString(data, 'summary_language', MAX_SUMMARY_LANGUAGE);

  // Languages: count first (too_many_languages), then what the engines serve.
  const transcription = languageList(data, 'transcription_languages');
  if (transcription.length === 0)
    invalid('transcription_languages', 'At least one transcription language is required.', engines.transcriptionLanguages());
  if (transcription.length > maxTranscription) {
    fail('too_many_languages', `At most ${maxTranscription} transcription languages.`, {
      max: maxTranscription,
      received: transcription.length,
    });
  }
  const translation = languageList(data, 'translation_languages');
  if (translation.length > MAX_TRANSLATION_LANGUAGES) {
    fail('too_many_languages', `At most ${MAX_TRANSLATION_LANGUAGES} translation languages.`, {
      max: MAX_TRANSLATION_LANGUAGES,
      received: translation.length,
    });
  }
  for (const lang of transcription) {
    if (!engines.servesTranscription(lang)) {
      invalid('transcription_languages', `No speech recognizer here serves "${lang}".`, engines.transcriptionLanguages());
    }
  }
  if (mode === 'multi_speaker') checkMultiSpeaker(transcription, engines);
  if (mode === 'multi_language') checkMultiLanguage(type, transcription, engines);
  let channels: ChannelSpec[] | null = null;
  if (mode === 'multi_channel') {
    const parsed = parseChannelStart(data, {
      allowed: transcription,
      serves: (l) => engines.servesTranscription(l),
      served: () => engines.transcriptionLanguages(),
    });
    if (parsed instanceof AppError) throw new Reject(parsed);
    channels = parsed;
  }

  const ttsEnabled = optionalBoolean(data, 'tts_enabled', false);
  if (mode === 'multi_channel' && (ttsEnabled || data.tts_language !== undefined || ttsMode !== null)) {
    fail('multichannel_tts_not_allowed', 'multi_channel recordings cannot use TTS.', { field: 'tts_enabled' });
  }
  const summaryMode =
    data.summary_mode === undefined || data.summary_mode === null ? null : oneOf(data, 'summary_mode', SUMMARY_MODES, 'builtin');
  const template = optionalString(data, 'summary_template', 50);
  const prompt = optionalString(data, 'summary_prompt', MAX_SUMMARY_PROMPT);
  const promptSlug = optionalString(data, 'summary_prompt_slug', MAX_SUMMARY_PROMPT_SLUG);

  if (type === 'record') {
    if (translation.length > 0)
      fail('record_translation_not_allowed', 'Recordings of type "record" cannot be translated.', { field: 'translation_languages' });
    if (ttsEnabled || data.tts_language !== undefined || ttsMode !== null) {
      fail('record_tts_not_allowed', 'Recordings of type "record" cannot use TTS.', { field: 'tts_enabled' });
    }
    const wantsSummary = summaryLanguage !== null || data.summary_plain_text !== undefined;
    if (wantsSummary && template === null && summaryMode !== 'custom') {
      fail('record_summary_requires_template', 'A "record" summary needs summary_template or summary_mode "custom".', {
        field: 'summary_template',
      });
    }
  }
  let conversation: ConversationStart | null = null;
  if (type === 'conversation') {
    try {
      conversation = checkConversation(data, transcription, translation, conversationMode ?? 'manual', engines);
    } catch (err) {
      if (err instanceof AppError) throw new Reject(err);
      throw err;
    }
  }
  const from = transcription[0] as string;
  for (const lang of translation) {
    if (!transcription.some((t) => engines.servesTranslation(t, lang))) {
      invalid('translation_languages', `No translator here serves ${from} to "${lang}".`, engines.translationTargets(from));
    }
    // multi_language: any utterance may be in any transcription language, so each must reach the target.
    const unserved =
      mode === 'multi_language'
        ? transcription.find((t) => baseLanguage(t) !== baseLanguage(lang) && !engines.servesTranslation(t, lang))
        : undefined;
    if (unserved)
      invalid('translation_languages', `No translator here serves ${unserved} to "${lang}".`, engines.translationTargets(unserved));
  }

  // Summary fields are mutually exclusive by mode (as on the summary endpoints).
  const effectiveMode = summaryMode ?? (prompt !== null || promptSlug !== null ? null : template !== null ? 'builtin' : null);
  if (summaryMode === 'custom' && (template !== null || prompt === null || promptSlug === null)) {
    fail('summary_mode_field_mismatch', 'summary_mode "custom" needs summary_prompt and summary_prompt_slug and no summary_template.', {
      field: template !== null ? 'summary_template' : prompt === null ? 'summary_prompt' : 'summary_prompt_slug',
    });
  }
  if (summaryMode !== 'custom' && (prompt !== null || promptSlug !== null)) {
    fail('summary_mode_field_mismatch', 'summary_prompt and summary_prompt_slug need summary_mode "custom".', {
      field: prompt !== null ? 'summary_prompt' : 'summary_prompt_slug',
    });
  }
  const tts =
    type === 'record'
      ? null
      : startTts(
          data,
          conversation ? transcription : translation,
          { ttsVoices: (l) => engines.ttsVoices?.(l) ?? null },
          opts.speaking_speed,
        );
  if (tts instanceof AppError) throw new Reject(tts);

  const silence = data.silenceTimeoutSeconds ?? 900;
  if (typeof silence !== 'number' || !Number.isInteger(silence) || silence < 1) {
    invalid('silenceTimeoutSeconds', 'silenceTimeoutSeconds must be a positive whole number of seconds.');
  }
  const sent = GLOSSARY_FIELDS.filter((f) => data[f] !== undefined);
  if (sent.length > 0) {
    warnings.push(new AppError('config_ignored_in_start', { variant: 'websocket', details: { fields: sent } }));
  }
  const mode2 = summaryMode ?? effectiveMode;
  const start: StartRequest = {
    type: type as StartRequest['type'],
    transcriptionLanguages: transcription,
    translationLanguages: translation,
    realtimeTranslation: optionalBoolean(data, 'realtime_translation', true),
    audioFormat,
    recognitionMode: mode as StartRequest['recognitionMode'],
    channels,
    name,
    summary:
      mode2 === null
        ? null
        : {
            mode: mode2,
            template,
            prompt,
            promptSlug,
            language: summaryLanguage,
            plainText: optionalBoolean(data, 'summary_plain_text', false),
          },
    ttsEnabled: tts?.enabled ?? false,
    tts,
    conversation,
    profanityHandling,
    speakingSpeed,
    silenceTimeoutSeconds: silence as number,
  };
  return { start, warnings };
}
