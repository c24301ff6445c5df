/**
 * The broadcast settings a host sends (spec "Broadcast creation body") and the update rules
 * Parley adds, as pure functions. Checked by hand rather than by schema: Fastify's validator
 * coerces types ("5" would pass as max_viewers), and every mistake here must be a 422
 * `validation_failed` with `details.field`. An unknown field is refused too: a typo must not
 * silently leave a channel public.
 */
import { validateWebhookUrl } from '../keys/service.js';
import { isKnownLanguage, normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';

export const MAX_TRANSCRIPTION_LANGUAGES = 10;
export const MAX_TRANSLATION_LANGUAGES = 12;
export const MAX_NAME = 100;
export const PASS_CODE_MIN = 4;
export const PASS_CODE_MAX = 12;
export const SPEAKING_RATE = { min: 0.5, max: 2, default: 1 } as const;
const MAX_TEMPLATE = 50;
const MAX_SUMMARY_LANGUAGE = 20;
const MAX_VOICE = 100;
export const ACCESS_TYPES = ['public', 'password'] as const;
/** Printable ASCII without the space: letters, digits and common punctuation. */
const PASS_CODE = /^[\x21-\x7E]+$/;

export type AccessType = (typeof ACCESS_TYPES)[number];

export interface TtsSetting {
  /** voice_name; null for the language's default voice. */
  voice: string | null;
  /** 0.5..2.0 (out-of-range values are clamped). */
  speaking_rate: number;
}

/** A broadcast's settings as stored (the pass code only as its hash, elsewhere). */
export interface BroadcastSettings {
  name: string | null;
  accessType: AccessType;
  transcriptionLanguages: string[];
  translationLanguages: string[];
  speakerDiarization: boolean;
  maxViewers: number;
  ttsConfig: Record<string, TtsSetting>;
  summaryTemplate: string | null;
  summaryLanguage: string;
  callbackUrl: string | null;
  /** Late joiners get a catch-up summary of what was said (src/broadcasts/catch-up/); the host can turn it off. */
  catchUp: boolean;
}

export interface RuleContext {
  /** The account viewer limit (the largest max_viewers, and its default). */
  viewerLimit: number;
  /** Is `slug` an enabled summary template? */
  templateExists(slug: string): boolean;
  /** voice_names of the synthesizer serving `language`, or null when none here does (not checked then). */
  voices(language: string): string[] | null;
  /**
   * The live recognizers of this process: whether one serves a language and what is offered
   * (GET /api/v1/languages `live`); null when this process has none (an api-only process), the
   * hosting node's start then decides.
   */
  speech?: () => { serves(language: string): boolean; offered: readonly string[] } | null;
}

/** A broadcast is recognized live: a language no live recognizer here serves is refused at creation, not at its first start. */
function assertSpeechServed(languages: readonly string[], ctx: Pick<RuleContext, 'speech'>): void {
  const speech = ctx.speech?.();
  const unserved = speech && languages.find((l) => !speech.serves(l));
  if (speech && unserved) {
    throw invalid('transcription_languages', `No speech recognizer here serves "${unserved}".`, {
      language: unserved,
      valid_values: [...speech.offered],
    });
  }
}

const CREATE_FIELDS = [
  'transcription_languages',
  'transcription_language',
  'translation_languages',
  'name',
  'access_type',
  'pass_code',
  'max_viewers',
  'speaker_diarization',
  'tts_config',
  'summary_template',
  'summary_language',
  'callback_url',
  'catch_up',
] as const;
/** What PATCH takes: everything but the name (fixed at creation, spec). */
const UPDATE_FIELDS = CREATE_FIELDS.filter((f) => f !== 'name');

export function invalid(field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('validation_failed', { message, details: { field, ...extra } });
}

export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

function has(body: Record<string, unknown>, field: string): boolean {
  return Object.hasOwn(body, field) && body[field] !== undefined;
}

function languageList(value: unknown, field: string, max: number, distinct: 'refuse' | 'merge'): string[] {
  if (!Array.isArray(value)) throw invalid(field, `${field} must be an array of language codes (BCP 47, e.g. "en-US").`);
  if (value.length > max) throw invalid(field, `At most ${max} ${field}; got ${value.length}.`, { max, actual: value.length });
  const out: string[] = [];
  for (const item of value) {
    const tag = typeof item === 'string' ? normalizeLanguage(item) : null;
    if (!tag || !isKnownLanguage(tag)) throw invalid(field, `${field} contains "${String(item)}", which is not a supported language code.`);
    if (out.includes(tag)) {
      if (distinct === 'refuse') throw invalid(field, `${field} lists "${tag}" twice.`, { duplicate: tag });
      continue;
    }
    out.push(tag);
  }
  return out;
}

/** transcription_languages, or the deprecated transcription_language (equal to its first element when both come). */
function transcriptionLanguages(body: Record<string, unknown>): string[] | undefined {
  const list = has(body, 'transcription_languages')
    ? languageList(body.transcription_languages, 'transcription_languages', MAX_TRANSCRIPTION_LANGUAGES, 'refuse')
    : undefined;
  if (!has(body, 'transcription_language')) return list;
  const single = body.transcription_language;
  const tag = typeof single === 'string' ? normalizeLanguage(single) : null;
  if (!tag || !isKnownLanguage(tag)) throw invalid('transcription_language', 'transcription_language must be a supported language code.');
  if (list && list[0] !== tag) {
    throw invalid('transcription_language', 'transcription_language (deprecated) must equal the first of transcription_languages.', {
      expected: list[0] ?? null,
    });
  }
  return list ?? [tag];
}

function optionalText(body: Record<string, unknown>, field: string, max: number): string | null {
  const v = body[field];
  if (v === null) return null;
  if (typeof v !== 'string') throw invalid(field, `${field} must be a string.`);
  const trimmed = v.trim();
  if ([...trimmed].length > max) throw invalid(field, `${field} is longer than ${max} characters.`, { max, actual: [...trimmed].length });
  return trimmed === '' ? null : trimmed;
}

function accessType(value: unknown): AccessType {
  if (typeof value !== 'string' || !(ACCESS_TYPES as readonly string[]).includes(value)) {
    throw invalid('access_type', 'access_type must be "public" or "password".', { valid_values: ACCESS_TYPES });
  }
  return value as AccessType;
}

/** 4 to 12 characters: letters, digits and common punctuation; no spaces, no Chinese characters. */
export function passCode(value: unknown): string {
  if (typeof value !== 'string') throw invalid('pass_code', 'pass_code must be a string.');
  const n = [...value].length;
  if (n < PASS_CODE_MIN || n > PASS_CODE_MAX) {
    throw invalid('pass_code', `pass_code must be ${PASS_CODE_MIN} to ${PASS_CODE_MAX} characters.`, {
      min: PASS_CODE_MIN,
      max: PASS_CODE_MAX,
      actual: n,
    });
  }
  if (!PASS_CODE.test(value)) {
    throw invalid('pass_code', 'pass_code may contain only letters, digits and common punctuation (no spaces or other scripts).');
  }
  return value;
}

function maxViewers(value: unknown, limit: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > limit) {
    throw invalid('max_viewers', `max_viewers must be a whole number from 1 to ${limit} (the account viewer limit).`, {
      min: 1,
      max: limit,
    });
  }
  return value;
}

export function parseTtsConfig(value: unknown, ctx: Pick<RuleContext, 'voices'>): Record<string, TtsSetting> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('tts_config', 'tts_config must be an object mapping a language to {voice, speaking_rate}.');
  }
  const out: Record<string, TtsSetting> = {};
  for (const [lang, raw] of Object.entries(value as Record<string, unknown>)) {
    const tag = normalizeLanguage(lang);
    const field = `tts_config.${lang}`;
    if (!tag || !isKnownLanguage(tag)) throw invalid(field, `"${lang}" is not a supported language code.`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(field, `${field} must be {voice, speaking_rate}.`);
    const entry = raw as Record<string, unknown>;
    const unknown = Object.keys(entry).find((k) => k !== 'voice' && k !== 'speaking_rate');
    if (unknown) throw invalid(`${field}.${unknown}`, `Unknown field "${unknown}"; tts_config entries take voice and speaking_rate.`);
    let voice: string | null = null;
    if (entry.voice !== undefined && entry.voice !== null) {
      if (typeof entry.voice !== 'string' || entry.voice.trim() === '' || entry.voice.length > MAX_VOICE) {
        throw invalid(`${field}.voice`, `voice must be a voice_name of at most ${MAX_VOICE} characters.`);
      }
      voice = entry.voice.trim();
      const known = ctx.voices(tag);
      if (known && !known.includes(voice)) throw invalid(`${field}.voice`, `No voice "${voice}" for ${tag}.`, { valid_values: known });
    }
    let rate: number = SPEAKING_RATE.default;
    if (entry.speaking_rate !== undefined && entry.speaking_rate !== null) {
      if (typeof entry.speaking_rate !== 'number' || !Number.isFinite(entry.speaking_rate)) {
        throw invalid(`${field}.speaking_rate`, 'speaking_rate must be a number (0.5 to 2.0).');
      }
      rate = Math.min(SPEAKING_RATE.max, Math.max(SPEAKING_RATE.min, entry.speaking_rate));
    }
    out[tag] = { voice, speaking_rate: rate };
  }
  return out;
}

function summaryTemplate(body: Record<string, unknown>, ctx: RuleContext): string | null {
  const slug = optionalText(body, 'summary_template', MAX_TEMPLATE);
  if (slug !== null && !ctx.templateExists(slug)) throw invalid('summary_template', `"${slug}" is not an enabled summary template.`);
  return slug;
}

function summaryLanguage(value: unknown): string | null {
  if (value === null) return null;
  const tag = typeof value === 'string' && value.length <= MAX_SUMMARY_LANGUAGE ? normalizeLanguage(value) : null;
  if (!tag || !isKnownLanguage(tag)) throw invalid('summary_language', 'summary_language must be a supported language code.');
  return tag;
}

function catchUp(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid('catch_up', 'catch_up must be true or false.');
  return value;
}

function callbackUrl(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw invalid('callback_url', 'callback_url must be a string.');
  return value.trim() === '' ? null : validateWebhookUrl(value.trim(), 'callback_url');
}

function refuseUnknown(body: Record<string, unknown>, allowed: readonly string[], extra: Record<string, string> = {}): void {
  for (const k of Object.keys(body)) {
    if (extra[k]) throw invalid(k, extra[k]);
    if (!allowed.includes(k)) throw invalid(k, `Unknown field "${k}".`, { valid_values: allowed });
  }
}

/** The rules that tie fields together, checked on the settings a create or an update leaves. */
function checkTogether(s: BroadcastSettings): BroadcastSettings {
  if (s.speakerDiarization && s.transcriptionLanguages.length > 1) {
    throw invalid('speaker_diarization', 'speaker_diarization needs exactly one transcription language.', {
      transcription_languages: s.transcriptionLanguages,
    });
  }
  return s;
}

export interface CreateInput {
  settings: BroadcastSettings;
  /** The plain pass code (hashed before it is stored), for password channels. */
  passCode: string | null;
}

export function parseCreate(raw: unknown, ctx: RuleContext): CreateInput {
  const body = bodyObject(raw);
  refuseUnknown(body, CREATE_FIELDS);
  const transcription = transcriptionLanguages(body);
  if (!transcription || transcription.length === 0) {
    throw invalid('transcription_languages', 'transcription_languages is required: 1 to 10 distinct language codes.');
  }
  assertSpeechServed(transcription, ctx);
  const access = has(body, 'access_type') ? accessType(body.access_type) : 'public';
  let code: string | null = null;
  if (access === 'password') {
    if (!has(body, 'pass_code')) throw invalid('pass_code', 'A password channel needs pass_code (4 to 12 characters).');
    code = passCode(body.pass_code);
  } else if (has(body, 'pass_code') && body.pass_code !== null) {
    throw invalid('pass_code', 'pass_code applies only to access_type "password".');
  }
  const diarization = body.speaker_diarization ?? false;
  if (typeof diarization !== 'boolean') throw invalid('speaker_diarization', 'speaker_diarization must be true or false.');
  const translation = has(body, 'translation_languages')
    ? languageList(body.translation_languages ?? [], 'translation_languages', MAX_TRANSLATION_LANGUAGES, 'merge')
    : [];
  const settings = checkTogether({
    name: has(body, 'name') ? optionalText(body, 'name', MAX_NAME) : null,
    accessType: access,
    transcriptionLanguages: transcription,
    translationLanguages: translation,
    speakerDiarization: diarization,
    maxViewers: has(body, 'max_viewers') && body.max_viewers !== null ? maxViewers(body.max_viewers, ctx.viewerLimit) : ctx.viewerLimit,
    ttsConfig: has(body, 'tts_config') ? parseTtsConfig(body.tts_config, ctx) : {},
    summaryTemplate: has(body, 'summary_template') ? summaryTemplate(body, ctx) : null,
    summaryLanguage: (has(body, 'summary_language') ? summaryLanguage(body.summary_language) : null) ?? transcription[0]!,
    callbackUrl: has(body, 'callback_url') ? callbackUrl(body.callback_url) : null,
    catchUp: has(body, 'catch_up') ? catchUp(body.catch_up) : true,
  });
  return { settings: keepTtsOfChannel(settings, has(body, 'tts_config')), passCode: code };
}

export interface UpdateInput {
  settings: BroadcastSettings;
  /** A new pass code (password channels), or null when the access is unchanged or became public. */
  passCode: string | null;
  /** The access type or the pass code changed: viewer tokens issued before stop working. */
  accessChanged: boolean;
  /** The fields the body changed (for the audit of what a running broadcast must pick up). */
  changed: string[];
}

/**
 * What PATCH may change, by the broadcast's status: recognition settings (languages, speaker
 * diarization) only before the first start (the running recognizer and the viewers' language
 * lists follow them); access, max_viewers, TTS, summary and callback_url until it ends; the
 * name never (spec). An ended or revoked broadcast changes no more.
 */
export function parseUpdate(raw: unknown, current: BroadcastSettings, status: string, ctx: RuleContext): UpdateInput {
  const body = bodyObject(raw);
  refuseUnknown(body, UPDATE_FIELDS, { name: 'name cannot change after creation.' });
  const changed = Object.keys(body).filter((k) => body[k] !== undefined);
  if (status === 'ended' || status === 'revoked') {
    throw new AppError('broadcast_not_editable', {
      message: `The broadcast is ${status}; it can no longer change.`,
      details: { status },
    });
  }
  const recognition = ['transcription_languages', 'transcription_language', 'translation_languages', 'speaker_diarization'];
  const late = changed.find((f) => recognition.includes(f));
  if (late && status !== 'pending') {
    throw new AppError('broadcast_not_editable', {
      message: `${late} can change only before the broadcast first starts.`,
      details: { field: late, status },
    });
  }
  const next: BroadcastSettings = { ...current };
  const transcription = transcriptionLanguages(body);
  if (transcription !== undefined) {
    if (transcription.length === 0) throw invalid('transcription_languages', 'transcription_languages needs 1 to 10 language codes.');
    assertSpeechServed(transcription, ctx);
    // The summary language followed the first transcription language unless it was chosen.
    if (current.summaryLanguage === current.transcriptionLanguages[0] && !has(body, 'summary_language'))
      next.summaryLanguage = transcription[0]!;
    next.transcriptionLanguages = transcription;
  }
  if (has(body, 'translation_languages')) {
    next.translationLanguages = languageList(body.translation_languages ?? [], 'translation_languages', MAX_TRANSLATION_LANGUAGES, 'merge');
  }
  if (has(body, 'speaker_diarization')) {
    if (typeof body.speaker_diarization !== 'boolean') throw invalid('speaker_diarization', 'speaker_diarization must be true or false.');
    next.speakerDiarization = body.speaker_diarization;
  }
  let code: string | null = null;
  let accessChanged = false;
  if (has(body, 'access_type')) {
    next.accessType = accessType(body.access_type);
    accessChanged = next.accessType !== current.accessType;
  }
  if (next.accessType === 'password') {
    if (has(body, 'pass_code')) {
      code = passCode(body.pass_code);
      accessChanged = true;
    } else if (current.accessType !== 'password') {
      throw invalid('pass_code', 'Switching to access_type "password" needs pass_code (4 to 12 characters).');
    }
  } else if (has(body, 'pass_code') && body.pass_code !== null) {
    throw invalid('pass_code', 'pass_code applies only to access_type "password".');
  }
  if (has(body, 'max_viewers')) next.maxViewers = maxViewers(body.max_viewers, ctx.viewerLimit);
  if (has(body, 'tts_config')) next.ttsConfig = parseTtsConfig(body.tts_config, ctx);
  if (has(body, 'summary_template')) next.summaryTemplate = summaryTemplate(body, ctx);
  if (has(body, 'summary_language')) next.summaryLanguage = summaryLanguage(body.summary_language) ?? next.transcriptionLanguages[0]!;
  if (has(body, 'callback_url')) next.callbackUrl = callbackUrl(body.callback_url);
  if (has(body, 'catch_up')) next.catchUp = catchUp(body.catch_up);
  return { settings: keepTtsOfChannel(checkTogether(next), has(body, 'tts_config')), passCode: code, accessChanged, changed };
}

/**
 * TTS settings only for the channel's languages: a tts_config sent with another language is
 * refused; the settings of a language an update removed are dropped.
 */
function keepTtsOfChannel(s: BroadcastSettings, sent: boolean): BroadcastSettings {
  const langs = new Set([...s.transcriptionLanguages, ...s.translationLanguages]);
  const stray = sent ? Object.keys(s.ttsConfig).find((l) => !langs.has(l)) : undefined;
  if (stray) {
    throw invalid(`tts_config.${stray}`, `${stray} is neither a transcription nor a translation language of this broadcast.`, {
      valid_values: [...langs],
    });
  }
  const tts = Object.fromEntries(Object.entries(s.ttsConfig).filter(([l]) => langs.has(l)));
  return { ...s, ttsConfig: tts };
}
