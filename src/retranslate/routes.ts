/**
 * Retranslation SSE (api role; `X-API-Key` header or `api_key` query):
 * - `GET /api/v1/sse/retranslate/{taskId}?targetLang=`: `translation` {sid, text, is_final}
 *   per sentence, then `done` {totalUpdated, totalFailed}.
 * - `GET /api/v1/sse/recordings/{taskId}/entries/{sid}/retranslate?targetLang=`: the same
 *   events for one sentence.
 * Every refusal comes before the stream opens (a JSON error, errorVariant `sse`); after it,
 * a sentence that fails is an `error` event with its `sid` and the stream goes on; when no
 * sentence could be translated the last event is an `error` (charge refunded), not `done`.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError, toErrorObject } from '../platform/errors/app-error.js';
import { type ErrorCode, isErrorCode } from '../platform/errors/registry.js';
import { errors, since, sse } from '../platform/http/api-doc.js';
import { ErrorEvent } from '../platform/http/event-schemas.js';
import { openSse, type SseStream } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { parseSid, type RetranslateJob, type RetranslateService } from './service.js';

export interface RetranslateRouteDeps {
  auth: Authenticator;
  retranslate: RetranslateService;
}

const Query = Type.Object({
  // Checked by hand (422 validation_failed with details.field), so no coercion or format here.
  targetLang: Type.Optional(Type.Unknown({ description: 'Target language code (required), e.g. es, zh-TW.' })),
  api_key: Type.Optional(Type.String({ description: 'API key, for EventSource clients that cannot set headers.' })),
});

const EVENTS = {
  translation: Type.Object({ sid: Type.Integer(), text: Type.String(), is_final: Type.Boolean() }),
  error: ErrorEvent,
  done: Type.Object({ totalUpdated: Type.Integer(), totalFailed: Type.Integer() }),
};
const RESPONSES = {
  200: sse('Retranslated sentences, saved into the transcript.', EVENTS),
  ...errors(
    [
      'recording_not_found',
      'sse_transcript_not_found',
      'sse_sentence_not_found',
      'invalid_processing_status',
      'record_translation_not_allowed',
      'translation_language_unsupported',
      'plan_feature_not_allowed',
      'auth_insufficient_credit',
      'auth_quota_exceeded',
    ],
    { auth: true, input: true, variant: 'sse' },
  ),
};

export function registerRetranslateRoutes(app: HttpApp, deps: RetranslateRouteDeps): void {
  const base = {
    onRequest: requireApiKey(deps.auth, 'header-or-query'),
    config: { errorVariant: 'sse' as const },
  };
  const stream = async (request: FastifyRequest, sse: SseStream, job: RetranslateJob) => {
    try {
      const r = await deps.retranslate.run(job, {
        async translated(sid, text) {
          // Back-pressure: a slow client must not make a long transcript pile up in memory.
          if (!sse.send('translation', { sid, text, is_final: true })) await sse.drained();
        },
        failed(sid, code) {
          const c: ErrorCode = isErrorCode(code) ? code : 'translation_failed';
          sse.send('error', toErrorObject(new AppError(c, { sid, details: { translation_language: job.target } })));
        },
      });
      sse.send('done', { totalUpdated: r.updated, totalFailed: r.failed });
    } catch (err) {
      if (!(err instanceof AppError)) request.log.error({ err, task_id: job.task.taskId }, 'retranslation failed');
      sse.send('error', toErrorObject(err instanceof AppError ? err : new AppError('internal_error')));
    } finally {
      sse.close();
    }
  };

  app.get<{ Params: { taskId: string }; Querystring: { targetLang?: unknown } }>(
    '/api/v1/sse/retranslate/:taskId',
    {
      ...base,
      schema: {
        tags: ['sse'],
        security: [{ apiKey: [] }],
        summary:
          'Full-text retranslation into targetLang, saved into the transcript and billed (retranslate). Events: translation {sid, text, is_final} per sentence, error {error_code, sid, ...} for a sentence that failed, then done {totalUpdated, totalFailed}.',
        params: Type.Object({ taskId: Type.String({ description: 'Task id (UUID)' }) }),
        querystring: Query,
        response: RESPONSES,
      },
    },
    async (request, reply) => {
      const job = await deps.retranslate.prepare(principalOf(request), request.params.taskId, request.query.targetLang, null);
      await stream(request, openSse(request, reply), job);
    },
  );

  app.get<{ Params: { taskId: string; sid: string }; Querystring: { targetLang?: unknown } }>(
    '/api/v1/sse/recordings/:taskId/entries/:sid/retranslate',
    {
      ...base,
      schema: {
        tags: ['sse'],
        security: [{ apiKey: [] }],
        summary:
          'One sentence (sid from 1) retranslated into targetLang, saved and billed (retranslate, per sentence). Events: translation {sid, text, is_final}, then done {totalUpdated, totalFailed}; error instead of done when it failed (refunded).',
        params: Type.Object({
          taskId: Type.String({ description: 'Task id (UUID)' }),
          sid: Type.String({ description: 'Sentence id (integer from 1)' }),
        }),
        querystring: Query,
        response: RESPONSES,
        ...since('1.4.0'),
      },
    },
    async (request, reply) => {
      const sid = parseSid(request.params.sid);
      const job = await deps.retranslate.prepare(principalOf(request), request.params.taskId, request.query.targetLang, sid);
      await stream(request, openSse(request, reply), job);
    },
  );
}
