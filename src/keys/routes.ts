/** GET /api/v1/me/key: the calling key's settings (spec "API key settings"); never the key or its secret. */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { errors, since } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { fromMilli } from '../store/columns.js';
import { displayWebhookUrl, type KeyService } from './service.js';

const KeySettings = Type.Object({
  name: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  monthly_spend_limit: Type.Union([Type.Number(), Type.Null()]),
  monthly_spent: Type.Union([Type.Number(), Type.Null()]),
  max_concurrent_sessions: Type.Union([Type.Integer(), Type.Null()]),
  allow_account_pool: Type.Boolean(),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  ip_restricted: Type.Boolean(),
});

export function registerKeyRoutes(
  app: HttpApp,
  deps: { auth: Authenticator; keys: KeyService; monthlySpent: (keyId: string) => Promise<number | null> },
): void {
  app.get(
    '/api/v1/me/key',
    {
      preHandler: requireApiKey(deps.auth, 'header'),
      schema: {
        tags: ['account'],
        summary: 'Settings of the calling key (never the key itself or its webhook secret)',
        security: [{ apiKey: [] }],
        response: { 200: Type.Object({ data: KeySettings }), ...errors([], { auth: true }) },
        ...since('1.21.0'),
      },
    },
    async (request) => {
      const { keyId } = principalOf(request);
      const key = await deps.keys.requireKey(keyId);
      const limit = key.monthly_spend_limit_milli === null ? null : fromMilli(key.monthly_spend_limit_milli);
      return ok({
        name: key.name,
        expires_at: key.expires_at,
        monthly_spend_limit: limit,
        monthly_spent: limit === null ? null : await deps.monthlySpent(keyId),
        max_concurrent_sessions: key.max_concurrent_sessions,
        allow_account_pool: key.allow_account_pool === 1,
        webhook_url: displayWebhookUrl(key.webhook_url),
        ip_restricted: key.ip_rules !== null,
      });
    },
  );
}
