/**
 * OpenAPI shapes of the broadcast routes. They document; the checks themselves are in
 * rules.ts and viewer-service.ts (by hand, so types are never coerced), which is why the
 * routes switch the schema validator off (`documentOnly`).
 */
import { Type } from 'typebox';

const Languages = Type.Array(Type.String(), { description: 'BCP 47 language codes' });
const TtsConfig = Type.Record(
  Type.String(),
  Type.Object({
    voice: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    speaking_rate: Type.Optional(Type.Number({ description: '0.5 to 2.0, default 1.0; out-of-range values are clamped' })),
  }),
  { description: 'Per language: the voice and speaking rate of spoken translations' },
);

const settingsFields = {
  transcription_languages: Type.Optional(Type.Array(Type.String(), { maxItems: 10, description: 'Up to 10, distinct' })),
  transcription_language: Type.Optional(Type.String({ description: 'Deprecated: the first transcription language' })),
  translation_languages: Type.Optional(Type.Array(Type.String(), { maxItems: 12 })),
  access_type: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('password')], { default: 'public' })),
  pass_code: Type.Optional(
    Type.String({ minLength: 4, maxLength: 12, description: 'Password channels: letters, digits and common punctuation; no spaces' }),
  ),
  max_viewers: Type.Optional(Type.Integer({ minimum: 1, description: '1 to the account viewer limit (the default)' })),
  speaker_diarization: Type.Optional(Type.Boolean({ default: false, description: 'Only with one transcription language' })),
  tts_config: Type.Optional(TtsConfig),
  summary_template: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
  summary_language: Type.Optional(Type.String({ description: 'A supported language code; default the first transcription language' })),
  callback_url: Type.Optional(Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Overrides the key webhook URL' })),
  catch_up: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'Late joiners get a catch-up summary of what was said (viewer event catch_up); false turns it off',
    }),
  ),
};

export const CreateBody = Type.Object({ ...settingsFields, name: Type.Optional(Type.String({ maxLength: 100 })) });

export const UpdateBody = Type.Object(settingsFields, {
  description:
    'Every field optional. name never changes; languages and speaker_diarization only while pending (409 broadcast_not_editable after).',
});

export const CreateResult = Type.Object({
  data: Type.Object({
    id: Type.String({ format: 'uuid' }),
    token: Type.String({ pattern: '^[a-z0-9]{4}$' }),
    share_url: Type.String({ description: 'The viewer caption stream address; not a page, never share it' }),
    status: Type.Literal('pending'),
  }),
});

export const OwnerBroadcast = Type.Object({
  id: Type.String({ format: 'uuid' }),
  token: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('ended'), Type.Literal('revoked')]),
  phase: Type.Union([Type.Literal('standby'), Type.Literal('live'), Type.Literal('paused'), Type.Null()]),
  is_live: Type.Boolean(),
  access_type: Type.String(),
  requires_password: Type.Boolean(),
  transcription_languages: Languages,
  translation_languages: Languages,
  speaker_diarization: Type.Boolean(),
  max_viewers: Type.Integer(),
  tts_config: TtsConfig,
  summary_template: Type.Union([Type.String(), Type.Null()]),
  summary_language: Type.String(),
  callback_url: Type.Union([Type.String({ description: 'scheme, host, port and path only' }), Type.Null()]),
  catch_up: Type.Boolean({ description: 'Late joiners get the catch-up summary (viewer event catch_up)' }),
  task_id: Type.Union([Type.String(), Type.Null()]),
  viewer_count: Type.Integer({ description: 'Viewers holding a seat now (every node)' }),
  queue_count: Type.Integer({ description: 'Viewers waiting for a seat now' }),
  peak_viewers: Type.Integer(),
  total_viewers: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  ended_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});

export const OwnerResult = Type.Object({ data: OwnerBroadcast });

export const OwnerList = Type.Object({
  data: Type.Array(OwnerBroadcast),
  meta: Type.Object({ current_page: Type.Integer(), last_page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() }),
});

const Voice = Type.Object({ voice_name: Type.String(), display_name: Type.String(), gender: Type.String() });

export const PublicView = Type.Object({
  data: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()]),
    access_type: Type.String(),
    requires_password: Type.Boolean(),
    status: Type.String(),
    is_live: Type.Boolean(),
    transcription_language: Type.String(),
    transcription_languages: Languages,
    translation_languages: Languages,
    tts_languages: Type.Array(Type.String(), { description: 'Empty when not live' }),
    tts_voices: Type.Record(Type.String(), Type.Array(Voice)),
  }),
});

export const VerifyBody = Type.Object({ password: Type.String({ maxLength: 12 }) });

export const VerifyResult = Type.Object({
  data: Type.Object({
    viewer_access_token: Type.Union([Type.String(), Type.Null()], { description: 'null for public channels' }),
    expires_at: Type.Union([Type.String(), Type.Null()], { description: '24 hours after issue' }),
    message: Type.Optional(Type.String({ description: 'Public channels: display text' })),
  }),
});

/** Route option: the schema documents the route; rules.ts checks the input. */
export { documentedInput as documentOnly } from '../platform/http/api-doc.js';
