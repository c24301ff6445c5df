/**
 * Conversation recordings (two-way): two speakers, each with a language; each final is
 * translated into the other speaker's language. Start validation here (start.ts calls it);
 * the actions start_speaking, stop_speaking, switch_conversation_mode and
 * set_speaker_language are in conversation-actions.ts. Decisions: docs/live-modes.md.
 */
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';

export const CONVERSATION_MODES = ['manual', 'auto'] as const;
export type ConversationMode = (typeof CONVERSATION_MODES)[number];
export const SPEAKER_IDS = ['1', '2'] as const;
const MAX_LABEL = 100;

export interface ConversationSpeaker {
  speakerId: string;
  language: string;
  label: string | null;
}

export interface ConversationStart {
  mode: ConversationMode;
  speakers: [ConversationSpeaker, ConversationSpeaker];
}

export interface PairQuery {
  servesTranscription(language: string): boolean;
  transcriptionLanguages(): string[];
  servesTranslation(from: string, to: string): boolean;
  translationTargets(from: string): string[];
}

const ws = { variant: 'websocket' as const };

export const invalidSpeaker = (message: string, details: Record<string, unknown>) =>
  new AppError('conversation_invalid_speaker', { ...ws, message, details });

/** A speaker id as clients send it ("1", 1): the id, or null. */
export function speakerIdOf(value: unknown): string | null {
  const id = typeof value === 'number' ? String(value) : value;
  return typeof id === 'string' && (SPEAKER_IDS as readonly string[]).includes(id) ? id : null;
}

/** `speakers` when given becomes the transcription languages (in order) if those are absent. */
export function conversationLanguages(data: Record<string, unknown>): Record<string, unknown> {
  if (data.type !== 'conversation' || !Array.isArray(data.speakers) || data.transcription_languages !== undefined) return data;
  return { ...data, transcription_languages: data.speakers.map((s) => (s as Record<string, unknown> | null)?.language) };
}

/**
 * The two speakers: from `speakers` (exactly 2) or users 1 and 2 on the two transcription
 * languages in order; each pair must be translatable both ways. Throws the AppError to send.
 */
export function checkConversation(
  data: Record<string, unknown>,
  transcription: string[],
  translation: string[],
  mode: ConversationMode,
  engines: PairQuery,
): ConversationStart {
  if (translation.length > 0) {
    throw new AppError('invalid_parameter', {
      ...ws,
      message: 'A conversation translates each side into the other side’s language; leave translation_languages out.',
      details: { field: 'translation_languages' },
    });
  }
  if (mode === 'auto') {
    // Telling who speaks from the audio needs spoken-language identification in the live path;
    // no live engine here declares it, so auto is refused rather than guessed.
    throw new AppError('invalid_parameter', {
      ...ws,
      message: 'conversation_mode "auto" needs spoken-language identification of live audio, which no engine here provides; use "manual".',
      details: { field: 'conversation_mode', valid_values: ['manual'], missing: ['spoken-language-id'] },
    });
  }
  let speakers: ConversationSpeaker[];
  if (data.speakers !== undefined && data.speakers !== null) {
    if (!Array.isArray(data.speakers) || data.speakers.length !== 2) {
      throw invalidSpeaker('speakers must list exactly 2 speakers.', {
        field: 'speakers',
        received: Array.isArray(data.speakers) ? data.speakers.length : null,
      });
    }
    speakers = data.speakers.map((raw, i) => {
      const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      const language = typeof s.language === 'string' ? normalizeLanguage(s.language) : null;
      if (!language || !transcription.includes(language)) {
        throw invalidSpeaker(`Speaker ${i + 1} needs a language among the transcription languages.`, {
          field: `speakers[${i}].language`,
          valid_values: transcription,
        });
      }
      const label = s.label === undefined || s.label === null ? null : s.label;
      if (label !== null && (typeof label !== 'string' || label.trim() === '' || label.trim().length > MAX_LABEL)) {
        throw invalidSpeaker(`Speaker ${i + 1}'s label must be 1 to ${MAX_LABEL} characters.`, { field: `speakers[${i}].label` });
      }
      return { speakerId: SPEAKER_IDS[i] as string, language, label: label === null ? null : (label as string).trim() };
    });
  } else {
    if (transcription.length !== 2) {
      throw invalidSpeaker('A conversation needs two transcription languages (users 1 and 2), or speakers.', {
        field: 'transcription_languages',
        received: transcription.length,
      });
    }
    speakers = transcription.map((language, i) => ({ speakerId: SPEAKER_IDS[i] as string, language, label: null }));
  }
  const [a, b] = speakers as [ConversationSpeaker, ConversationSpeaker];
  for (const [from, to] of [
    [a.language, b.language],
    [b.language, a.language],
  ] as const) {
    if (from !== to && !engines.servesTranslation(from, to)) {
      throw new AppError('invalid_parameter', {
        ...ws,
        message: `No translator here serves ${from} to ${to}, which this conversation needs.`,
        details: { field: 'transcription_languages', valid_values: engines.translationTargets(from) },
      });
    }
  }
  return { mode, speakers: [a, b] };
}
