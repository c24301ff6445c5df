/**
 * multi_channel parameters (spec "Multi-channel WebSocket errors"; the values the spec leaves
 * open are decided in docs/live-modes.md): `channel_mode` and `channels` at start, and the
 * channel actions add_channel, remove_channel, set_channel_language. Pure parsers: each
 * returns the value to apply or throws/returns the AppError the client is sent.
 *
 * A channel is `{channel_id, language, label?}`: `channel_id` 1..8 is the channel's position
 * in the interleaved PCM frame (1 = first sample of each frame), `language` one of the start's
 * transcription_languages, `label` an optional display name for its speaker. The speaker of a
 * channel is `speaker_id` "<channel_id>".
 */
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';

export const CHANNEL_MODES = ['interleaved'] as const;
export const MAX_CHANNELS = 8;
/** One setting change per channel per this many seconds (spec "Limits"). */
export const CHANNEL_COOLDOWN_SECONDS = 5;
const LABEL_MAX = 100;

export interface ChannelSpec {
  channelId: number;
  language: string;
  label: string | null;
}

const ws = { variant: 'websocket' as const };

export const channelError = (code: ErrorCode, message: string, details: Record<string, unknown> = {}) =>
  new AppError(code, { ...ws, message, details });

/** Where the language of a channel is checked: what the session allows and what engines serve. */
export interface ChannelLanguages {
  /** The start's transcription_languages. */
  allowed: readonly string[];
  serves(language: string): boolean;
  served(): string[];
}

function channelId(v: unknown, field: string): number | AppError {
  if (v === undefined || v === null) return channelError('channel_id_required', `${field} is required.`, { field });
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_CHANNELS) {
    return channelError('invalid_channel_id', `${field} must be a whole number from 1 to ${MAX_CHANNELS}.`, {
      field,
      received: v,
      min: 1,
      max: MAX_CHANNELS,
    });
  }
  return v;
}

function channelLanguage(v: unknown, field: string, langs: ChannelLanguages): string | AppError {
  if (v === undefined || v === null || v === '') return channelError('channel_language_required', `${field} is required.`, { field });
  const tag = typeof v === 'string' ? normalizeLanguage(v) : null;
  if (!tag || !langs.serves(tag)) {
    return channelError('channel_language_not_allowed', `No speech recognizer here serves "${String(v)}".`, {
      field,
      language: v,
      valid_values: langs.served(),
    });
  }
  if (!langs.allowed.includes(tag)) {
    return channelError('channel_language_mismatch', `${field} must be one of the session's transcription_languages.`, {
      field,
      language: tag,
      valid_values: [...langs.allowed],
    });
  }
  return tag;
}

function channelLabel(v: unknown, field: string): string | null | AppError {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.trim() === '' || v.trim().length > LABEL_MAX) {
    return new AppError('invalid_parameter', { ...ws, message: `${field} must be 1 to ${LABEL_MAX} characters.`, details: { field } });
  }
  return v.trim();
}

/** One channel object (start's `channels[i]` or add_channel's data). */
export function parseChannel(raw: unknown, field: string, langs: ChannelLanguages): ChannelSpec | AppError {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return channelError('invalid_channel_id', `${field} must be an object with channel_id and language.`, { field });
  }
  const o = raw as Record<string, unknown>;
  const id = channelId(o.channel_id, `${field}.channel_id`);
  if (id instanceof AppError) return id;
  const language = channelLanguage(o.language, `${field}.language`, langs);
  if (language instanceof AppError) return language;
  const label = channelLabel(o.label, `${field}.label`);
  if (label instanceof AppError) return label;
  return { channelId: id, language, label };
}

/** `channel_mode` and `channels` of a multi_channel start (the audio format is checked by the caller). */
export function parseChannelStart(data: Record<string, unknown>, langs: ChannelLanguages): ChannelSpec[] | AppError {
  const mode = data.channel_mode;
  if (mode === undefined || mode === null || mode === '') {
    return channelError('channel_mode_required', 'multi_channel needs channel_mode.', {
      field: 'channel_mode',
      valid_values: [...CHANNEL_MODES],
    });
  }
  if (!(CHANNEL_MODES as readonly unknown[]).includes(mode)) {
    return channelError('invalid_channel_mode', `channel_mode must be one of ${CHANNEL_MODES.join(', ')}.`, {
      field: 'channel_mode',
      valid_values: [...CHANNEL_MODES],
    });
  }
  const list = data.channels;
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    return channelError('channels_required', 'multi_channel needs channels (1 to 8).', { field: 'channels', min: 1, max: MAX_CHANNELS });
  }
  if (!Array.isArray(list))
    return channelError('channels_required', 'channels must be an array of channel objects.', { field: 'channels' });
  if (list.length > MAX_CHANNELS) {
    return channelError('too_many_channels', `At most ${MAX_CHANNELS} channels.`, {
      field: 'channels',
      max: MAX_CHANNELS,
      received: list.length,
    });
  }
  const out: ChannelSpec[] = [];
  for (const [i, raw] of list.entries()) {
    const c = parseChannel(raw, `channels[${i}]`, langs);
    if (c instanceof AppError) return c;
    if (out.some((o) => o.channelId === c.channelId)) {
      return channelError('channel_id_in_use', `channel_id ${c.channelId} is given twice.`, {
        field: `channels[${i}].channel_id`,
        channel_id: c.channelId,
      });
    }
    out.push(c);
  }
  return out;
}

/** The channel_id of remove_channel and set_channel_language, checked against the session's channels. */
export function existingChannelId(data: Record<string, unknown>, active: readonly number[]): number | AppError {
  const id = channelId(data.channel_id, 'channel_id');
  if (id instanceof AppError) return id;
  if (!active.includes(id)) {
    return channelError('unknown_channel_id', `This session has no channel ${id}.`, { channel_id: id, valid_values: [...active] });
  }
  return id;
}

/** set_channel_language's language. */
export function parseChannelLanguage(data: Record<string, unknown>, langs: ChannelLanguages): string | AppError {
  return channelLanguage(data.language, 'language', langs);
}

/**
 * At most one setting change per channel per CHANNEL_COOLDOWN_SECONDS: rebuilding a
 * recognizer costs a model load; a client toggling settings would starve the others.
 */
export class ChannelCooldown {
  private readonly last = new Map<number, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly seconds = CHANNEL_COOLDOWN_SECONDS,
  ) {}

  /** Records a change of `channel` now, or returns channel_rebuild_too_frequent. */
  take(channel: number): AppError | null {
    const at = this.now();
    const previous = this.last.get(channel);
    if (previous !== undefined && at - previous < this.seconds * 1000) {
      return channelError('channel_rebuild_too_frequent', `Channel ${channel} was changed less than ${this.seconds} s ago.`, {
        channel_id: channel,
        cooldown_seconds: Math.max(1, Math.ceil((previous + this.seconds * 1000 - at) / 1000)),
      });
    }
    this.last.set(channel, at);
    return null;
  }
}
