/** Wire schemas of the task routes (OpenAPI and the contract test); shapes from format.ts. */
import { Type } from 'typebox';
import { IsoTime, Nullable, Uuid } from '../platform/http/api-doc.js';

const Langs = Nullable(Type.Array(Type.String()));
const OpenString = (values: string) => Type.String({ description: `${values}; treat unknown values as general` });

export const TaskItem = Type.Object({
  task_id: Uuid(),
  title: Type.String(),
  type: OpenString('transcribe, conversation, record, broadcast'),
  type_source: OpenString('realtime, import, broadcast'),
  duration_ms: Type.Number(),
  duration_formatted: Type.String({ description: 'mm:ss (minutes not wrapped at 60)' }),
  transcription_languages: Langs,
  translation_languages: Langs,
  created_at: IsoTime(),
  processing_status: OpenString('recording, importing, uploading, pending, processing, completed, failed'),
  is_pinned: Type.Boolean(),
  is_unread: Type.Boolean(),
  summary_mode: Nullable(Type.String({ description: 'builtin or custom' })),
  summary_template: Nullable(Type.String()),
  summary_language: Nullable(Type.String()),
});

/** GET /tasks/{id} (Parley, beyond the interface): the list item plus what the list leaves out. */
export const TaskDetail = Type.Object({
  ...TaskItem.properties,
  name_source: Type.String({ description: 'auto, or user after a rename' }),
  recognition_mode: Type.String({ description: 'single, multi_speaker, multi_language, multi_channel' }),
  has_audio: Type.Boolean({ description: 'The audio can be exported or played (GET /sse/audio/{taskId})' }),
  import_id: Nullable(Uuid('The import that made this task')),
  failure_source: Nullable(Type.String({ description: 'user_forced or no_audio when failed that way' })),
  error_code: Nullable(Type.String({ description: 'Why processing failed' })),
  updated_at: IsoTime(),
});

export const Sentence = Type.Object({
  sid: Type.Integer({ minimum: 1 }),
  origin: Type.String(),
  translations: Nullable(Type.Record(Type.String(), Type.String())),
  translation_errors: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'language -> error code' })),
  start_time: Type.String({ description: 'mm:ss' }),
  speaker_id: Type.String({ description: 'Original speaker id; empty without diarization' }),
  speaker_label: Type.Optional(Type.String({ description: 'Current display name (Parley)' })),
  language: Type.Optional(
    Type.String({ description: 'The language it was recognized in, one of the transcription languages (BCP 47; Parley)' }),
  ),
});

export const SummaryPayload = Type.Object(
  {
    text: Type.String(),
    mode: Nullable(Type.String()),
    template: Nullable(Type.String()),
    plain_text: Nullable(Type.Boolean()),
    summary_language: Nullable(Type.String()),
    prompt_snapshot: Type.Optional(Nullable(Type.String())),
    fallback_level: Type.Optional(Type.Integer()),
    dropped_segments: Type.Optional(Type.Array(Type.Integer())),
  },
  { description: 'Null fields and empty text when there is no summary' },
);

export const TaskIds = Type.Array(Uuid(), { minItems: 1, maxItems: 100 });

export const RenameSpeakerBody = Type.Object({
  speaker_id: Type.String({ maxLength: 100, description: 'Original id or current display label' }),
  new_label: Type.String({ maxLength: 100, description: 'No control characters or line breaks' }),
});
export const ReassignBody = Type.Object({
  sid: Type.Integer(),
  target_speaker_id: Type.String({ maxLength: 100, description: 'Original id only' }),
});
export const MergeBody = Type.Object({
  source_speaker_id: Type.String({ maxLength: 100 }),
  target_speaker_id: Type.String({ maxLength: 100 }),
});
/** The REST answers of speaker edits are the speaker events' payloads (one definition). */
export { SpeakerReassigned as Reassigned, SpeakerRenamed as Renamed, SpeakersMerged as Merged } from '../platform/http/event-schemas.js';
