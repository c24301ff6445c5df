/**
 * Broadcast routes. The host's (X-API-Key): POST /api/v1/broadcasts (spec) and Parley's
 * list, read, update and revoke (docs/broadcasts.md). The viewers' (no key, any origin: see
 * `isPublicPath` in platform/http/server.ts): the public view and the password check.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { API_KEY, errors, PUBLIC, since, Uuid } from '../platform/http/api-doc.js';
import { pagedStatusQuery } from '../platform/http/query.js';
import { ok } from '../platform/http/reply.js';
import { sourceOf } from '../platform/http/source.js';
import type { HttpApp } from '../platform/http/types.js';
import {
  CreateBody,
  CreateResult,
  documentOnly,
  OwnerList,
  OwnerResult,
  PublicView,
  UpdateBody,
  VerifyBody,
  VerifyResult,
} from './schemas.js';
import { type BroadcastService, STATUSES } from './service.js';
import type { ViewerService } from './viewer-service.js';

export interface BroadcastRouteDeps {
  auth: Authenticator;
  broadcasts: BroadcastService;
  viewers: ViewerService;
}

type IdParams = { Params: { id: string } };
type TokenParams = { Params: { token: string } };

/** The viewer caption stream of a token, on the host the request reached (behind a proxy: its forwarded host). */
function shareUrl(request: FastifyRequest, token: string): string {
  return `${request.protocol}://${request.host}/broadcast/${token}/text`;
}

export function registerBroadcastRoutes(app: HttpApp, deps: BroadcastRouteDeps): void {
  const onRequest = requireApiKey(deps.auth, 'header');
  const owner = (summary: string) => ({ tags: ['broadcasts'], security: API_KEY, summary });
  const IdParamsSchema = Type.Object({ id: Uuid('Broadcast id (from creation)') });

  app.post(
    '/api/v1/broadcasts',
    {
      onRequest,
      ...documentOnly,
      schema: {
        ...owner('Create a broadcast channel; 403 plan_feature_not_allowed under a plan-bound unlimited plan.'),
        body: CreateBody,
        response: {
          200: CreateResult,
          ...errors(['plan_feature_not_allowed', 'auth_insufficient_credit'], { auth: true, body: true }),
        },
      },
    },
    async (request) => {
      const b = await deps.broadcasts.create(principalOf(request), request.body);
      return ok({ id: b.id, token: b.token, share_url: shareUrl(request, b.token), status: 'pending' as const });
    },
  );

  app.get(
    '/api/v1/broadcasts',
    {
      onRequest,
      ...documentOnly,
      schema: {
        ...owner("The account's broadcasts, newest first"),
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)))),
        }),
        response: { 200: OwnerList, ...errors([], { auth: true, input: true }) },
      },
    },
    async (request) => {
      const { page, perPage, status } = pagedStatusQuery(request.query as Record<string, unknown>, STATUSES, {
        min: 1,
        max: 100,
        fallback: 20,
      });
      return deps.broadcasts.list(principalOf(request), page, perPage, status);
    },
  );

  app.get<IdParams>(
    '/api/v1/broadcasts/:id',
    {
      onRequest,
      ...documentOnly,
      schema: {
        ...owner('One broadcast of the account'),
        params: IdParamsSchema,
        response: { 200: OwnerResult, ...errors(['broadcast_not_found'], { auth: true }) },
      },
    },
    async (request) => ok(await deps.broadcasts.ownerView(await deps.broadcasts.get(principalOf(request), request.params.id))),
  );

  app.patch<IdParams>(
    '/api/v1/broadcasts/:id',
    {
      onRequest,
      ...documentOnly,
      schema: {
        ...owner('Change the settings that may still change (never the name).'),
        params: IdParamsSchema,
        body: UpdateBody,
        response: { 200: OwnerResult, ...errors(['broadcast_not_found', 'broadcast_not_editable'], { auth: true, body: true }) },
      },
    },
    async (request) =>
      ok(await deps.broadcasts.ownerView(await deps.broadcasts.update(principalOf(request), request.params.id, request.body))),
  );

  app.post<IdParams>(
    '/api/v1/broadcasts/:id/revoke',
    {
      onRequest,
      ...documentOnly,
      schema: {
        ...owner('Revoke: the link stops working, a running broadcast ends. Idempotent.'),
        params: IdParamsSchema,
        response: { 200: OwnerResult, ...errors(['broadcast_not_found'], { auth: true }) },
      },
    },
    async (request) => ok(await deps.broadcasts.ownerView(await deps.broadcasts.revoke(principalOf(request), request.params.id))),
  );

  const viewer = (summary: string) => ({ tags: ['viewers'], summary, security: PUBLIC });
  const TokenParamsSchema = Type.Object({ token: Type.String({ description: 'The 4-character share token' }) });

  app.get<TokenParams>(
    '/api/v1/viewer/broadcasts/:token',
    {
      ...documentOnly,
      schema: {
        ...viewer('The public view of a broadcast (no API key; callable from any origin)'),
        params: TokenParamsSchema,
        response: {
          200: PublicView,
          ...errors(['broadcast_token_invalid', 'broadcast_token_revoked', 'too_many_requests']),
        },
        ...since('1.24.1'),
      },
    },
    async (request) => ok(await deps.viewers.publicView(request.params.token, sourceOf(request.ip))),
  );

  app.post<TokenParams>(
    '/api/v1/viewer/broadcasts/:token/verify',
    {
      ...documentOnly,
      schema: {
        ...viewer('Check a broadcast password; 200 with a viewer_access_token valid 24 hours.'),
        params: TokenParamsSchema,
        body: VerifyBody,
        response: {
          200: VerifyResult,
          ...errors(['broadcast_token_invalid', 'broadcast_token_revoked', 'broadcast_password_incorrect', 'too_many_requests'], {
            body: true,
          }),
        },
      },
    },
    async (request) => {
      const lang = request.headers['accept-language'];
      return ok(
        await deps.viewers.verify(request.params.token, request.body, sourceOf(request.ip), typeof lang === 'string' ? lang : undefined),
      );
    },
  );
}
