/**
 * Payload schemas shared by several event streams (SSE routes declare them with api-doc.ts
 * `sse()`; the contract check validates every event the tests receive against them, and the
 * client's types are generated from them). One definition per shape: the standard error
 * object as an event, display messages, spoken audio with word boundaries, speaker edits.
 */
import { type TSchema, Type } from 'typebox';

const Str = (description?: string) => Type.String(description ? { description } : {});

/** The standard error object sent as an SSE `error` event (spec "Errors"); codes are open. */
export const ErrorEvent = Type.Object(
  {
    error_code: Str('Error code (see docs/errors.md); more may be added'),
    severity: Str('fatal, error or warning'),
    message: Str('Display text; do not parse'),
    context: Type.String(),
    sid: Type.Optional(Type.Integer({ description: 'Sentence-level errors only' })),
    translation_language: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    timestamp: Str('ISO 8601 UTC'),
    details: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  },
  { description: 'Standard error object' },
);

/** An event that carries only a display message (decide by the event name, not the text). */
export const MessageEvent = Type.Object({ message: Str('Display text; do not parse') });

/** A display message with its translations (announcements, standby). */
export const TranslatedMessage = Type.Object({
  message: Type.String(),
  translations: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'language -> text' })),
});

export const WordBoundary = Type.Object({
  offset_ms: Type.Number(),
  duration_ms: Type.Number(),
  text: Type.String(),
  text_offset: Type.Integer({ description: 'Character offset of the word in `text`' }),
  word_length: Type.Integer(),
});

/** Speech of one sentence: SSE tts `tts_audio`, broadcast viewer `tts_ready`. */
export const SpokenSentence = Type.Object({
  sid: Type.Integer(),
  language: Type.String(),
  transcript: Str('The sentence as transcribed'),
  text: Str('What is spoken (the translation, or the transcript in its own language)'),
  audio: Str('Base64 MP3'),
  format: Type.Literal('mp3'),
  duration_ms: Type.Integer(),
  boundaries: Type.Array(WordBoundary),
});

export const SpeakerRenamed = Type.Object({
  speaker_id: Type.String(),
  new_label: Type.String(),
  affected_sids: Type.Array(Type.Integer()),
});
export const SpeakerReassigned = Type.Object({
  sid: Type.Integer(),
  old_speaker_id: Type.String(),
  new_speaker_id: Type.String(),
  new_speaker_label: Type.String(),
  source: Type.Optional(
    Type.Literal('diarization', { description: 'Extension: the live diarizer corrected an earlier final (absent for edits)' }),
  ),
});
export const SpeakersMerged = Type.Object({
  source_speaker_id: Type.String(),
  target_speaker_id: Type.String(),
  target_speaker_label: Type.String(),
  affected_sids: Type.Array(Type.Integer()),
});

/** The three speaker-edit events, as every stream names them. */
export const SPEAKER_EVENTS: Record<string, TSchema> = {
  speaker_renamed: SpeakerRenamed,
  speaker_reassigned: SpeakerReassigned,
  speakers_merged: SpeakersMerged,
};
