/**
 * Import routes (spec "Imports"): check-quota, the multipart upload (its own scope, the only
 * one with the multipart parser), one import, the list, and the progress stream
 * `GET /api/v1/sse/imports/{id}/progress` (events in progress.ts and docs/imports.md).
 */
import multipart from '@fastify/multipart';
import type { EventBus } from '../bus/types.js';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { pagedStatusQuery } from '../platform/http/query.js';
import { ok } from '../platform/http/reply.js';
import { streamToSse } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { type RateLimiter, rateLimitHook } from '../platform/rate-limit.js';
import { type ProgressEvent, progressTopic, snapshotEvent } from './progress.js';
import { type ImportService, importJson } from './service.js';
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
  const schema = (summary: string) => ({ tags: ['imports'], security: [{ apiKey: [] }], summary });

  app.post(
    '/api/v1/imports/check-quota',
    { onRequest, schema: schema('Import quota pre-check: 200 with allowed and reason (a prediction only).') },
    async (request) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new AppError('validation_failed', {
          message: 'The body must be a JSON object with duration_ms.',
          details: { field: 'duration_ms' },
        });
      }
      return ok(await deps.imports.checkQuota(principalOf(request), (body as { duration_ms?: unknown }).duration_ms));
    },
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
        schema: schema('Upload an mp3, wav or m4a file (multipart/form-data); 202 with the import.'),
      },
      async (request, reply) => {
        const rec = await deps.imports.accept(principalOf(request), request);
        return reply.code(202).send(ok(importJson(rec)));
      },
    );
  });

  app.get<IdParams>('/api/v1/imports/:importId', { onRequest, schema: schema('One import of the caller.') }, async (request) =>
    ok(importJson(await deps.imports.get(principalOf(request), request.params.importId))),
  );

  app.get(
    '/api/v1/imports',
    { onRequest, schema: schema('Imports of the caller, newest first: page, per_page (5-20), status.') },
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
      schema: { ...schema('Import progress stream: progress..., then completed or failed (error_code).'), tags: ['sse'] },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const importId = request.params.importId;
      const read = async (reread: boolean) => [{ e: snapshotEvent(await deps.imports.get(principal, importId)), reread }];
      // Progress never goes backwards on the stream (a retry restarts a stage's window); a
      // re-read that shows nothing new is not sent again; nothing follows the closing event.
      let lastPercent = -1;
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
            if (e.data.progress < lastPercent || (reread && e.data.progress === lastPercent)) return null;
            lastPercent = e.data.progress;
            return { event: e.event, data: e.data };
          },
        },
        { heartbeatMs: deps.heartbeatMs },
      );
    },
  );
}
