/** Wire schemas of the import routes (OpenAPI and the contract test). */
import { Type } from 'typebox';
import { IsoTime, Nullable, Uuid } from '../platform/http/api-doc.js';

export const ImportJson = Type.Object({
  import_id: Uuid(),
  status: Type.String({ description: 'pending, processing, completed, failed' }),
  stage: Nullable(Type.String({ description: 'converting, transcribing, translating, summarizing while processing' })),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  message: Nullable(Type.String()),
  original_filename: Type.String(),
  file_size: Type.String({ description: 'Human-readable size' }),
  task_id: Nullable(Uuid('Filled when completed')),
  created_at: IsoTime(),
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  queue_position: Nullable(
    Type.Integer({
      minimum: 1,
      description:
        'Extension: while pending, the place in the import queue (1 = next to start when a worker is free; accounts take turns); null otherwise',
    }),
  ),
});

export const QuotaCheck = Type.Object({
  allowed: Type.Boolean(),
  reason: Nullable(Type.String({ description: 'insufficient_credit, plan_not_allowed, plan_daily_limit_reached (v1.16.4)' })),
  is_unlimited: Type.Boolean(),
  remain_quota: Nullable(Type.Number()),
  duration_minutes: Type.Integer(),
  estimated_points: Type.Number({ description: 'Speech recognition only (spec); the whole price is in estimate' }),
  estimate: Type.Object(
    {
      recognition: Type.Number(),
      translation: Type.Number({ description: 'Per translation language named in the request' }),
      diarization: Type.Number({ description: 'multi_speaker' }),
      summary: Type.Number({ description: 'When summary is true; charged as its own summary usage when made' }),
      total: Type.Number(),
    },
    { description: 'Extension: the points this import will cost, part by part (minutes rounded up x the price table)' },
  ),
});

/** The check's request: the spec's duration_ms and Parley's extension fields describing the import. */
export const QuotaCheckBody = Type.Object({
  duration_ms: Type.Integer({ minimum: 1000, maximum: 36_000_000 }),
  translation_languages: Type.Optional(
    Type.Array(Type.String(), { maxItems: 12, uniqueItems: true, description: 'Extension: the translation languages of the import' }),
  ),
  recognition_mode: Type.Optional(
    Type.Union([Type.Literal('single'), Type.Literal('multi_speaker')], { default: 'single', description: 'Extension' }),
  ),
  summary: Type.Optional(Type.Boolean({ default: false, description: 'Extension: a summary will be asked for' })),
});

const jsonText = (description: string) => Type.String({ description: `JSON text: ${description}` });

/** The multipart form of POST /imports, field by field (spec "Form fields of POST /api/v1/imports"). */
export const ImportForm = Type.Object({
  file: Type.String({
    format: 'binary',
    description:
      'mp3, wav or m4a, max 500 MB; the format is decided from the content, not the extension, and checked before the other fields',
  }),
  transcription_languages: jsonText('array of 1-10 distinct language codes, e.g. ["en-US"]'),
  translation_languages: Type.Optional(jsonText('array of up to 12 distinct language codes, e.g. ["es"]')),
  recognition_mode: Type.Union([Type.Literal('single'), Type.Literal('multi_speaker')], {
    description: 'multi_language or multi_channel give 422 import_recognition_mode_unsupported',
  }),
  summary_template: Type.Optional(
    Type.String({ maxLength: 50, description: 'An enabled template slug (GET /summary-templates?category=all)' }),
  ),
  summary_mode: Type.Optional(Type.Union([Type.Literal('builtin'), Type.Literal('custom')], { default: 'builtin' })),
  summary_prompt: Type.Optional(Type.String({ maxLength: 3000, description: 'Required for custom, forbidden otherwise' })),
  summary_prompt_slug: Type.Optional(
    Type.String({ maxLength: 64, description: 'Required for custom, forbidden otherwise; passed through' }),
  ),
  terminology: Type.Optional(jsonText('{"<lang>": [{"term": "..."}]}; terms max 100 characters, 500 per language and in all')),
  fuzzy_correction: Type.Optional(
    jsonText('{"<lang>": [{"correct": "...", "incorrect": ["..."], "case_insensitive": false}]}; up to 4000 rules'),
  ),
  translation_dict: Type.Optional(
    jsonText('{"<target lang>": [{"source": "...", "target": "...", "case_sensitive": false}]}; up to 3000 entries per language'),
  ),
  callback_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Webhook URL for this import' })),
});
