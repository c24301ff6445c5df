/**
 * Conversation actions (manual mode): start_speaking {speaker_id} -> a `status` message
 * {status: speaking, speaker_id, language, active_language}; stop_speaking -> `status`
 * {status: listening, ...}; switch_conversation_mode {conversation_mode};
 * set_speaker_language {speaker_id, language} -> speaker_language_set. An unknown speaker is
 * conversation_invalid_speaker; a session of another type gets invalid_data.
 */

import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import { CONVERSATION_MODES, invalidSpeaker, speakerIdOf } from './conversation.js';
import { eventMessage } from './protocol.js';
import type { Recording } from './recording.js';
import type { EngineQuery } from './start.js';

export interface ConversationContext {
  running: Recording | null;
  engines: EngineQuery;
  send(text: string): void;
  sendError(err: AppError): void;
}

type Data = Record<string, unknown>;
const ws = { variant: 'websocket' as const };

function conversation(c: ConversationContext, action: string): (Recording & { talk: NonNullable<Recording['talk']> }) | null {
  const rec = c.running;
  if (!rec) {
    c.sendError(new AppError('session_not_started', { ...ws, details: { action } }));
    return null;
  }
  if (!rec.talk) {
    c.sendError(
      new AppError('invalid_data', {
        ...ws,
        message: `${action} applies to conversation recordings.`,
        details: { action, reason: 'not_conversation' },
      }),
    );
    return null;
  }
  return rec as Recording & { talk: NonNullable<Recording['talk']> };
}

function speakerOf(c: ConversationContext, rec: NonNullable<ReturnType<typeof conversation>>, data: Data, action: string) {
  const id = speakerIdOf(data.speaker_id);
  const speaker = rec.talk.speakers.find((s) => s.speakerId === id);
  if (!speaker) {
    c.sendError(invalidSpeaker('speaker_id must be "1" or "2".', { action, field: 'speaker_id', valid_values: ['1', '2'] }));
    return null;
  }
  return speaker;
}

const statusOf = (rec: NonNullable<ReturnType<typeof conversation>>, status: string) =>
  eventMessage('status', {
    status,
    speaker_id: rec.talk.active,
    language: rec.language,
    active_language: rec.activeLanguage,
    task_id: rec.taskId,
  });

/** The recognizer follows the active speaker: the utterance in progress ends in the old language first. */
export async function startSpeakingAction(c: ConversationContext, data: Data): Promise<void> {
  const rec = conversation(c, 'start_speaking');
  if (!rec) return;
  const speaker = speakerOf(c, rec, data, 'start_speaking');
  if (!speaker) return;
  rec.setActiveSpeaker(speaker.speakerId);
  await rec.switchLanguage(speaker.language);
  c.send(statusOf(rec, 'speaking'));
}

/** Ends the utterance in progress (it becomes final); later audio still counts for the same speaker. */
export async function stopSpeakingAction(c: ConversationContext): Promise<void> {
  const rec = conversation(c, 'stop_speaking');
  if (!rec) return;
  await rec.switchLanguage(rec.language);
  c.send(statusOf(rec, 'listening'));
}

export function switchConversationModeAction(c: ConversationContext, data: Data): void {
  const rec = conversation(c, 'switch_conversation_mode');
  if (!rec) return;
  const mode = data.conversation_mode;
  if (mode !== 'manual') {
    const known = (CONVERSATION_MODES as readonly unknown[]).includes(mode);
    c.sendError(
      new AppError('invalid_data', {
        ...ws,
        message: known
          ? 'conversation_mode "auto" needs spoken-language identification of live audio, which no engine here provides.'
          : `conversation_mode must be one of ${CONVERSATION_MODES.join(', ')}.`,
        details: {
          action: 'switch_conversation_mode',
          field: 'conversation_mode',
          valid_values: known ? ['manual'] : [...CONVERSATION_MODES],
        },
      }),
    );
    return;
  }
  c.send(eventMessage('conversation_mode_changed', { conversation_mode: mode, task_id: rec.taskId }));
}

export async function setSpeakerLanguageAction(c: ConversationContext, data: Data): Promise<void> {
  const rec = conversation(c, 'set_speaker_language');
  if (!rec) return;
  const speaker = speakerOf(c, rec, data, 'set_speaker_language');
  if (!speaker) return;
  const language = typeof data.language === 'string' ? normalizeLanguage(data.language) : null;
  const other = rec.talk.speakers.find((s) => s !== speaker)?.language as string;
  const usable =
    language !== null &&
    c.engines.servesTranscription(language) &&
    (language === other || (c.engines.servesTranslation(language, other) && c.engines.servesTranslation(other, language)));
  if (!usable) {
    c.sendError(
      new AppError('invalid_data', {
        ...ws,
        message: `language must be one this service recognizes and translates to and from ${other}.`,
        details: {
          action: 'set_speaker_language',
          field: 'language',
          valid_values: c.engines.transcriptionLanguages().filter((l) => l === other || c.engines.servesTranslation(other, l)),
        },
      }),
    );
    return;
  }
  rec.setSpeakerLanguage(speaker.speakerId, language);
  if (rec.talk.active === speaker.speakerId && rec.language !== language) await rec.switchLanguage(language);
  c.send(
    eventMessage('speaker_language_set', {
      task_id: rec.taskId,
      speaker_id: speaker.speakerId,
      language,
      active_language: rec.activeLanguage,
      speakers: rec.talk.speakers.map((s) => ({ speaker_id: s.speakerId, language: s.language, label: s.label })),
    }),
  );
}
