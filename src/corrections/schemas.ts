/**
 * The shapes of a correction (the REST answers, the `sentence_corrected` event of the session
 * stream and of the broadcast viewer stream), defined once for OpenAPI, AsyncAPI and the
 * contract checks.
 */
import { Type } from 'typebox';
import { Uuid } from '../platform/http/api-doc.js';

export const TextMap = Type.Record(Type.String(), Type.String());

/** The answer of a correction or undo: the `sentence_corrected` event's fields, plus the charge. */
export const correctedFields = {
  task_id: Uuid(),
  sid: Type.Integer(),
  revision: Type.Integer({ description: 'The sentence revision now (0: as recognized)' }),
  kind: Type.Union([Type.Literal('correction'), Type.Literal('undo')]),
  text: Type.String(),
  previous_text: Type.String(),
  translations: TextMap,
  translation_errors: Type.Record(Type.String(), Type.String(), { description: 'Languages whose translation failed' }),
  speaker_id: Type.Union([Type.String(), Type.Null()]),
  start_time: Type.String({ description: 'mm:ss from the recording start' }),
};
export const SentenceCorrectedSchema = Type.Object(correctedFields);

/** What broadcast viewers get (src/broadcasts/viewer-corrections.ts): times from go-live, speaker label. */
export const ViewerSentenceCorrected = Type.Object({
  sid: Type.Integer(),
  revision: Type.Integer(),
  kind: Type.Union([Type.Literal('correction'), Type.Literal('undo')]),
  text: Type.String(),
  previous_text: Type.String(),
  translations: Type.Record(Type.String(), Type.String(), { description: 'Every translation language' }),
  translation_errors: Type.Record(Type.String(), Type.String()),
  speaker_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  speaker_label: Type.Union([Type.String(), Type.Null()]),
  start_time: Type.String({ description: 'mm:ss from go-live' }),
});
