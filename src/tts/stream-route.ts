/**
 * `GET /api/v1/sse/tts/{taskId}?language=&voice=&sid=&length=` (api role; `X-API-Key` header
 * or `api_key` query): `connected`, one `tts_audio` per sentence, `tts_done`. Refusals come
 * before the stream opens (JSON error, errorVariant `sse`); a sentence that cannot be
 * translated or spoken is an `error` event with its sid, and the stream goes on.
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError, toErrorObject } from '../platform/errors/app-error.js';
import { errors, sse as sseResponse } from '../platform/http/api-doc.js';
import { ErrorEvent, SpokenSentence } from '../platform/http/event-schemas.js';
import { openSse } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { TTS_MAX_LENGTH, type TtsQuery, type TtsStreamService } from './stream.js';

export interface TtsStreamRouteDeps {
  auth: Authenticator;
  stream: TtsStreamService;
}

export function registerTtsStreamRoute(app: HttpApp, deps: TtsStreamRouteDeps): void {
  app.get<{ Params: { taskId: string }; Querystring: TtsQuery }>(
    '/api/v1/sse/tts/:taskId',
    {
      onRequest: requireApiKey(deps.auth, 'header-or-query'),
      config: { errorVariant: 'sse' },
      schema: {
        tags: ['sse'],
        security: [{ apiKey: [] }],
        summary:
          'Speaks sentences sid..sid+length-1 in language. Events: connected {task_id, language, voice_name, sids}; tts_audio {sid, language, transcript, text, audio (base64 MP3), format, duration_ms, boundaries[] {offset_ms, duration_ms, text, text_offset, word_length}} per sentence; error {error_code, sid} for a sentence that could not be translated or spoken; tts_done {sids, total_spoken, translation_errors}. 400 tts_invalid_language.',
        // Checked by hand (tts_invalid_language, validation_failed with details.field): no coercion here.
        querystring: Type.Object({
          language: Type.Optional(Type.Unknown({ description: 'Language to speak (required), e.g. es' })),
          voice: Type.Optional(Type.Unknown({ description: 'voice_name from GET /api/v1/tts/voices; default voice of the language' })),
          sid: Type.Optional(Type.Unknown({ description: 'First sentence id (default 1)' })),
          length: Type.Optional(Type.Unknown({ description: `Number of sentences (default 1, max ${TTS_MAX_LENGTH})` })),
          api_key: Type.Optional(Type.String()),
        }),
        params: Type.Object({ taskId: Type.String({ description: 'Task id (UUID)' }) }),
        response: {
          200: sseResponse('Speech of consecutive sentences.', {
            connected: Type.Object({
              message: Type.String(),
              task_id: Type.String(),
              language: Type.String(),
              voice_name: Type.String(),
              sids: Type.Array(Type.Integer()),
            }),
            tts_audio: SpokenSentence,
            error: ErrorEvent,
            tts_done: Type.Object({
              sids: Type.Array(Type.Integer()),
              total_spoken: Type.Integer(),
              translation_errors: Type.Record(Type.String(), Type.String(), { description: 'sid -> error code of a sentence not spoken' }),
            }),
          }),
          ...errors(
            [
              'recording_not_found',
              'tts_invalid_language',
              'tts_voice_not_found',
              'sse_transcript_not_found',
              'sse_sentence_not_found',
              'invalid_processing_status',
              'record_tts_not_allowed',
              'plan_feature_not_allowed',
              'auth_insufficient_credit',
              'auth_quota_exceeded',
              'record_translation_not_allowed',
              'translation_language_unsupported',
            ],
            { auth: true, input: true, variant: 'sse' },
          ),
        },
      },
    },
    async (request, reply) => {
      const job = await deps.stream.prepare(principalOf(request), request.params.taskId, request.query);
      const sse = openSse(request, reply);
      const abort = new AbortController();
      void sse.done.then(() => abort.abort());
      sse.send('connected', {
        message: 'connected',
        task_id: job.task.taskId,
        language: job.language,
        voice_name: job.voice.voice_name,
        sids: job.lines.map((l) => l.sentence.sid),
      });
      try {
        const outcome = await deps.stream.run(
          job,
          {
            async audio(a) {
              // Back-pressure: the next sentence waits until the client took this one.
              if (!sse.send('tts_audio', a)) await sse.drained();
            },
            failed(sid, code, details) {
              sse.send('error', toErrorObject(new AppError(code, { sid, details })));
            },
          },
          abort.signal,
        );
        sse.send('tts_done', { sids: outcome.sids, total_spoken: outcome.spoken, translation_errors: outcome.errors });
      } catch (err) {
        if (!abort.signal.aborted) {
          request.log.error({ err, task_id: job.task.taskId }, 'TTS stream failed');
          sse.send('error', toErrorObject(err instanceof AppError ? err : new AppError('internal_error')));
        }
      } finally {
        sse.close();
      }
    },
  );
}
