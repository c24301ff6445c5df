/**
 * Floating-subtitle access routes (spec "Floating subtitle access"). Errors use the spec's
 * `{error: <code>}` shape (route config `errorShape`), except the public exchange's 429,
 * which keeps the standard shape with `Retry-After`. The public exchange is open to browser
 * pages on any origin (CORS by path, src/platform/http/server.ts) and counted, invalid secrets
 * included, before anything else is read: per source and recording first (the spec's 30 per
 * minute, so one client sees the spec's number), then per recording (a ceiling many sources
 * together must reach), so one address flooding bogus secrets cannot lock the exchange for
 * the real audience.
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { errors } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import { sourceOf } from '../platform/http/source.js';
import type { HttpApp } from '../platform/http/types.js';
import { type RateLimiter, rateLimitHook } from '../platform/rate-limit.js';
import { FEED_TOKEN_LENGTH, SHARE_SECRET_LENGTH, type SubtitleService } from './service.js';

export const EXCHANGES_PER_MINUTE = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const TokenBody = Type.Object({
  data: Type.Object({
    token: Type.String({
      minLength: FEED_TOKEN_LENGTH,
      maxLength: FEED_TOKEN_LENGTH,
      description: 'Pass as ?feed_token= to the subtitle SSE',
    }),
    expires_in: Type.Integer({ description: 'Seconds (900); every use of the token moves its expiry 900 s ahead' }),
  }),
});
const SUBTITLE = { shape: 'subtitle-token' as const };
const ownerErrors = errors(['plan_feature_not_allowed', 'recording_not_found', 'recording_ended', 'recording_not_ready'], {
  ...SUBTITLE,
  auth: true,
});

type IdParams = { Params: { taskId: string } };
/** Not a UUID format check: any other id is answered as an unknown recording, in this family's shape. */
const TaskIdParam = Type.Object({ taskId: Type.String({ description: 'Task id of the live recording' }) });

/** Path ids that are not UUIDs name no recording. */
function taskIdOf(params: { taskId: string }): string {
  return UUID.test(params.taskId) ? params.taskId.toLowerCase() : '00000000-0000-0000-0000-000000000000';
}

export function registerSubtitleRoutes(
  app: HttpApp,
  deps: { auth: Authenticator; subtitles: SubtitleService; rateLimiter: RateLimiter; exchangesPerRecording: number },
): void {
  const { subtitles } = deps;
  const owner = {
    onRequest: requireApiKey(deps.auth, 'header'),
    config: { errorShape: 'subtitle-token' as const },
  };
  const tags = ['floating subtitles'];
  const security = [{ apiKey: [] }];

  app.post<IdParams>(
    '/api/v1/auth/tasks/:taskId/subtitle-feed-token',
    {
      ...owner,
      schema: {
        tags,
        security,
        params: TaskIdParam,
        summary: 'Owner feed token for the subtitle SSE of a live recording (48 characters, 900 s sliding)',
        response: { 200: TokenBody, ...ownerErrors },
      },
    },
    async (request) => ok(await subtitles.ownerToken(principalOf(request), taskIdOf(request.params))),
  );

  app.post<IdParams>(
    '/api/v1/auth/tasks/:taskId/subtitle-share',
    {
      ...owner,
      schema: {
        tags,
        security,
        params: TaskIdParam,
        summary:
          'Enable (or re-enable) sharing: a new 48-character share_secret valid 43200 s; earlier links and their audience stop working',
        response: {
          200: Type.Object({
            data: Type.Object({
              share_secret: Type.String({ minLength: SHARE_SECRET_LENGTH, maxLength: SHARE_SECRET_LENGTH, description: 'Shown only here' }),
              expires_in: Type.Integer({ description: 'Seconds (43200)' }),
            }),
          }),
          ...ownerErrors,
        },
      },
    },
    async (request) => ok(await subtitles.enableShare(principalOf(request), taskIdOf(request.params))),
  );

  app.delete<IdParams>(
    '/api/v1/auth/tasks/:taskId/subtitle-share',
    {
      ...owner,
      schema: {
        tags,
        security,
        params: TaskIdParam,
        summary: 'Revoke sharing: the share link and every audience token from it stop working (open audience streams end)',
        response: {
          200: Type.Object({
            data: Type.Object({
              revoked: Type.Boolean({ description: "false when the recording is missing or not the caller's; true for the owner" }),
            }),
          }),
          ...errors([], { ...SUBTITLE, auth: true }),
        },
      },
    },
    async (request) => ok(await subtitles.revokeShare(principalOf(request), taskIdOf(request.params))),
  );

  app.post<IdParams>(
    '/api/v1/public/tasks/:taskId/subtitle-feed-token',
    {
      // Counted before the body is even parsed: malformed and invalid attempts count too.
      // The source first: a source past its own limit is refused before it counts for the recording.
      onRequest: [
        rateLimitHook(deps.rateLimiter, {
          key: (request) => `subtitle-exchange-src:${taskIdOf(request.params as { taskId: string })}:${sourceOf(request.ip)}`,
          limit: EXCHANGES_PER_MINUTE,
          windowMs: 60_000,
        }),
        rateLimitHook(deps.rateLimiter, {
          key: (request) => `subtitle-exchange:${taskIdOf(request.params as { taskId: string })}`,
          limit: deps.exchangesPerRecording,
          windowMs: 60_000,
        }),
      ],
      config: { errorShape: 'subtitle-token' as const },
      // The body is checked by the service: any malformed secret is `invalid_share`, as a wrong one.
      attachValidation: true,
      schema: {
        tags,
        security: [],
        params: TaskIdParam,
        summary: 'Exchange a share secret for a read-only audience feed token (no API key; 30 per minute per source and recording)',
        body: Type.Object({ share_secret: Type.String({ minLength: SHARE_SECRET_LENGTH, maxLength: SHARE_SECRET_LENGTH }) }),
        response: {
          200: TokenBody,
          ...errors(['invalid_share', 'plan_feature_not_allowed', 'recording_ended', 'recording_not_ready', 'too_many_requests'], {
            ...SUBTITLE,
            body: true,
          }),
        },
      },
    },
    async (request) => {
      const body = request.body as { share_secret?: unknown } | null | undefined;
      return ok(await subtitles.exchange(taskIdOf(request.params), body && typeof body === 'object' ? body.share_secret : undefined));
    },
  );
}
