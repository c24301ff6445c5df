/**
 * `GET /api/v1/tts/voices?language=xx` and `GET /api/v1/tts/voices/{voiceName}/sample`
 * (api role, `X-API-Key`). The voices route reports `validation_failed` with status 400 (the
 * spec's "400 on voices" exception, registry variant `voices`); a missing or malformed
 * `language` gets it, a well-formed but unsupported one an empty list. Samples are limited
 * to a number per minute per account through the shared RateLimiter (429 with Retry-After).
 */
import { Type } from 'typebox';
import { normalizeLanguage } from '../languages.js';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { API_KEY, binary, documentedInput, errors } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { type RateLimiter, rateLimitHook } from '../platform/rate-limit.js';
import type { TtsService } from './service.js';

/** Spec limit "Voice sample requests": 30 per minute per user. */
export const SAMPLES_PER_MINUTE = 30;

const VoiceSchema = Type.Object({
  voice_name: Type.String(),
  display_name: Type.String(),
  gender: Type.Union([Type.Literal('Female'), Type.Literal('Male')]),
  is_default: Type.Boolean(),
  sample_url: Type.String({ description: 'Path of the voice sample endpoint for this voice.' }),
});

export interface TtsRouteDeps {
  auth: Authenticator;
  tts: TtsService;
  rateLimiter: RateLimiter;
}

export function registerTtsRoutes(app: HttpApp, deps: TtsRouteDeps): void {
  const auth = requireApiKey(deps.auth, 'header');
  app.get(
    '/api/v1/tts/voices',
    {
      config: { errorVariant: 'voices' },
      preHandler: auth,
      // Checked by hand: a missing or malformed language is 400 validation_failed with details.field.
      ...documentedInput,
      schema: {
        tags: ['tts'],
        security: API_KEY,
        summary:
          'Voices for a language (BCP 47 code); an unsupported language gives an empty list; 400 validation_failed without language.',
        querystring: Type.Object({ language: Type.String({ description: 'Language code, e.g. en-US (required)' }) }),
        response: {
          200: Type.Object({ data: Type.Object({ language: Type.String(), voices: Type.Array(VoiceSchema) }) }),
          ...errors([], { auth: true, input: true, variant: 'voices' }),
        },
      },
    },
    async (request) => {
      const raw = (request.query as { language?: unknown }).language;
      const language = typeof raw === 'string' && raw.length <= 35 ? normalizeLanguage(raw) : null;
      if (!language) {
        throw new AppError('validation_failed', {
          message: raw === undefined || raw === '' ? 'language is required.' : 'language must be a language code such as en-US.',
          details: { field: 'language', location: 'querystring' },
        });
      }
      return ok({ language, voices: deps.tts.voices(language) });
    },
  );
  app.get(
    '/api/v1/tts/voices/:voiceName/sample',
    {
      preHandler: [
        auth,
        rateLimitHook(deps.rateLimiter, {
          key: (request) => `voice-sample:${principalOf(request).accountId}`,
          limit: SAMPLES_PER_MINUTE,
          windowMs: 60_000,
        }),
      ],
      schema: {
        tags: ['tts'],
        security: API_KEY,
        summary: 'An MP3 sample of the voice (free; synthesized on first use, then cached); 30 per minute per account.',
        params: Type.Object({ voiceName: Type.String({ description: 'voice_name from GET /tts/voices' }) }),
        response: {
          200: binary(['audio/mpeg'], 'MP3 audio, Cache-Control: public, max-age=86400'),
          ...errors(['tts_voice_not_found', 'tts_sample_generation_failed', 'too_many_requests'], { auth: true }),
        },
      },
    },
    async (request, reply) => {
      const { voiceName } = request.params as { voiceName: string };
      const mp3 = await deps.tts.sample(voiceName);
      return reply
        .header('Content-Type', 'audio/mpeg')
        .header('Content-Length', String(mp3.length))
        .header('Cache-Control', 'public, max-age=86400')
        .send(mp3);
    },
  );
}
