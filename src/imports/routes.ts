/**
 * Import routes (spec "Imports"): check-quota, the multipart upload (its own scope, the only
 * one with the multipart parser), one import, the list, and the progress stream
 * `GET /api/v1/sse/imports/{id}/progress` (events in progress.ts and docs/imports.md).
 */
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { EventBus } from '../bus/types.js';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { API_KEY, API_KEY_OR_QUERY, Data, documentedInput, errors, Nullable, PageMeta, sse, Uuid } from '../platform/http/api-doc.js';
import { pagedStatusQuery } from '../platform/http/query.js';
import { ok } from '../platform/http/reply.js';
import { streamToSse } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { type RateLimiter, rateLimitHook } from '../platform/rate-limit.js';
import { type ProgressEvent, progressTopic } from './progress.js';
import { ImportForm, ImportJson, QuotaCheck, QuotaCheckBody } from './schemas.js';
import type { ImportService } from './service.js';
import type { ImportStatus } from './store.js';

export interface ImportRouteDeps {
  auth: Authenticator;
  imports: ImportService;
  bus: EventBus;
  /** SSE heartbeat; the import is also re-read then (a safety net under the at-most-once bus). */
  heartbeatMs: number;
  rateLimiter: RateLimiter;
  uploadsPerMinute: number;
}

type IdParams = { Params: { importId: string } };
const STATUSES: ImportStatus[] = ['pending', 'processing', 'completed', 'failed'];

export function registerImportRoutes(app: HttpApp, deps: ImportRouteDeps): void {
  const onRequest = requireApiKey(deps.auth, 'header');
  const op = (summary: string) => ({ tags: ['imports'], security: API_KEY, summary });
  const ImportIdParams = Type.Object({ importId: Uuid('Import id (UUID)') });

  app.post(
    '/api/v1/imports/check-quota',
    {
      onRequest,
      ...documentedInput,
      schema: {
        ...op('Import quota pre-check: 200 with allowed and a reason (a prediction only)'),
        description:
          'Every rejection is 200 with allowed false and a reason; the upload can still be refused. duration_ms bounds follow the deployment setting (default 1000 to 36000000). Extension: translation_languages, recognition_mode and summary describe the import, and `estimate` prices all of it (estimated_points stays speech recognition only).',
        body: QuotaCheckBody,
        response: { 200: Data(QuotaCheck), ...errors([], { auth: true, body: true }) },
      },
    },
    async (request) => ok(await deps.imports.checkQuota(principalOf(request), request.body)),
  );

  // The upload streams its file to disk: the multipart parser lives only in this scope.
  app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true });
    scope.post(
      '/api/v1/imports',
      {
        onRequest,
        // Floods are refused before a byte of their files is read.
        preHandler: rateLimitHook(deps.rateLimiter, {
          key: (request) => `imports:${principalOf(request).accountId}`,
          limit: deps.uploadsPerMinute,
          windowMs: 60_000,
        }),
        // The form is read as a stream by the service (upload.ts, options.ts); the schema documents it.
        ...documentedInput,
        schema: {
          ...op('Upload an mp3, wav or m4a file (multipart/form-data); 202 with the import'),
          description:
            'Processing continues in the background: poll GET /imports/{importId} or follow GET /sse/imports/{importId}/progress. The file format is checked first (415 import_invalid_format), then the other fields.',
          consumes: ['multipart/form-data'],
          body: ImportForm,
          response: {
            202: Data(ImportJson, {}, 'Accepted: status pending, progress 0, stage null, task_id null'),
            ...errors(
              [
                'import_file_too_large',
                'import_invalid_format',
                'import_recognition_mode_unsupported',
                'summary_mode_field_mismatch',
                'auth_insufficient_credit',
                'stt_quota_exceeded',
                'plan_daily_limit_reached',
                'plan_feature_not_allowed',
                'too_many_requests',
                'llm_init_failed',
              ],
              { auth: true, body: true },
            ),
          },
        },
      },
      async (request, reply) => {
        const rec = await deps.imports.accept(principalOf(request), request);
        const [json] = await deps.imports.toJson([rec]);
        return reply.code(202).send(ok(json));
      },
    );
  });

  app.get<IdParams>(
    '/api/v1/imports/:importId',
    {
      onRequest,
      ...documentedInput,
      schema: {
        ...op('One import of the caller'),
        params: ImportIdParams,
        response: { 200: Data(ImportJson), ...errors(['import_not_found'], { auth: true }) },
      },
    },
    async (request) => ok((await deps.imports.toJson([await deps.imports.get(principalOf(request), request.params.importId)]))[0]),
  );

  app.get(
    '/api/v1/imports',
    {
      onRequest,
      ...documentedInput,
      schema: {
        ...op('Imports of the caller, newest first'),
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
          per_page: Type.Optional(Type.Integer({ minimum: 5, maximum: 20, default: 20 })),
          status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)))),
        }),
        response: { 200: Data(Type.Array(ImportJson), { meta: PageMeta }), ...errors([], { auth: true, input: true }) },
      },
    },
    async (request) => {
      const { page, perPage, status } = pagedStatusQuery(request.query as Record<string, unknown>, STATUSES, {
        min: 5,
        max: 20,
        fallback: 20,
      });
      return deps.imports.list(principalOf(request), page, perPage, status);
    },
  );

  app.get<IdParams>(
    '/api/v1/sse/imports/:importId/progress',
    {
      onRequest: requireApiKey(deps.auth, 'header-or-query'),
      config: { errorVariant: 'sse' as const },
      ...documentedInput,
      schema: {
        ...op('Import progress stream: progress..., then completed or failed'),
        tags: ['sse', 'imports'],
        security: API_KEY_OR_QUERY,
        description: 'The first event is the current state; progress never goes backwards; the stream ends after completed or failed.',
        params: ImportIdParams,
        response: {
          200: sse('Progress of one import.', {
            progress: Type.Object({
              import_id: Type.String(),
              status: Type.String(),
              stage: Nullable(Type.String()),
              progress: Type.Integer(),
              message: Nullable(Type.String()),
              queue_position: Type.Optional(
                Type.Integer({ minimum: 1, description: 'Extension, while pending: the place in the queue (1 = next to start)' }),
              ),
            }),
            completed: Type.Object({
              import_id: Type.String(),
              status: Type.Literal('completed'),
              progress: Type.Literal(100),
              task_id: Nullable(Type.String()),
            }),
            failed: Type.Object({
              import_id: Type.String(),
              status: Type.Literal('failed'),
              error_code: Type.String(),
              error_message: Type.String(),
            }),
          }),
          ...errors(['import_not_found'], { auth: true, variant: 'sse' }),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const importId = request.params.importId;
      const read = async (reread: boolean) => [{ e: await deps.imports.snapshot(principal, importId), reread }];
      // Progress never goes backwards on the stream (a retry restarts a stage's window); a
      // re-read that shows nothing new (same percent, same place in the queue) is not sent
      // again; nothing follows the closing event.
      let lastPercent = -1;
      let lastPlace: number | undefined;
      await streamToSse<{ e: ProgressEvent; reread: boolean }>(
        request,
        reply,
        {
          subscribe: (push) => deps.bus.subscribe(progressTopic(importId), (e) => push({ e, reread: false })),
          // Read once the subscription is live: an unknown or another account's import is a JSON 404.
          initial: () => read(false),
          // The bus is at-most-once: at each heartbeat the record is read again, so a lost event cannot hang the stream.
          onHeartbeat: () => read(true),
          frame({ e, reread }) {
            if (e.event !== 'progress') return { event: e.event, data: e.data, end: true };
            const place = e.data.queue_position;
            if (e.data.progress < lastPercent || (reread && e.data.progress === lastPercent && place === lastPlace)) return null;
            lastPercent = e.data.progress;
            lastPlace = place;
            return { event: e.event, data: e.data };
          },
        },
        { heartbeatMs: deps.heartbeatMs },
      );
    },
  );
}
