/**
 * `GET /api/v1/languages` (api role, `X-API-Key`): what this server's engines serve right now,
 * for pickers and clients that want to ask before they start (a Parley extension; the spec
 * has no such endpoint). Computed once from the registry (src/engines/offer.ts), which does
 * not change while the process runs; the same lists are the `valid_values` of every language
 * refusal, so what this lists is what the start, import and broadcast checks accept.
 */
import { Type } from 'typebox';
import type { LanguageOffer } from '../engines/offer.js';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { API_KEY, errors, Nullable } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';

const Codes = (description: string) => Nullable(Type.Array(Type.String(), { description }));

const OfferSchema = Type.Object({
  live: Codes(
    'transcription_languages a live session (WebSocket start) can use, common first then by name; null when this process runs no live sessions (split roles).',
  ),
  import: Codes(
    'transcription_languages an import (POST /imports) can use; null when this process loads no file recognizer (split roles).',
  ),
  translation: Nullable(
    Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Source language -> translation_languages reachable from it (directly or through one pivot language).',
    }),
  ),
  tts: Codes('Languages a synthesizer speaks (tts_language, GET /tts/voices).'),
  names: Type.Record(Type.String(), Type.String(), { description: 'English display name of every code listed.' }),
});

export function registerLanguageRoutes(app: HttpApp, deps: { auth: Authenticator; offer: () => LanguageOffer }): void {
  app.get(
    '/api/v1/languages',
    {
      preHandler: requireApiKey(deps.auth, 'header'),
      schema: {
        tags: ['languages'],
        security: API_KEY,
        summary:
          'Languages the engines here serve: live and import speech, translation targets per source, TTS (Parley extension). A bare engine code ("de") is listed with the regional tags people pick (de-DE, de-AT, de-CH).',
        response: { 200: Type.Object({ data: OfferSchema }), ...errors([], { auth: true }) },
      },
    },
    async () => ok(deps.offer()),
  );
}
