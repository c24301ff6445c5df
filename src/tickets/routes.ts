/** POST /api/v1/auth/ticket (spec "Authentication and version"). */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { errors } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import type { TicketService } from './service.js';

const TicketResponse = Type.Object({
  data: Type.Object({
    ticket: Type.String({ minLength: 32, maxLength: 32, description: 'Single use; connect with Sec-WebSocket-Protocol: ticket.<TICKET>' }),
    expires_in: Type.Integer({ description: 'Seconds (60)' }),
  }),
});

export function registerTicketRoutes(app: HttpApp, deps: { auth: Authenticator; tickets: TicketService }): void {
  app.post(
    '/api/v1/auth/ticket',
    {
      onRequest: requireApiKey(deps.auth, 'header'),
      schema: {
        tags: ['authentication'],
        summary: 'Obtain a WebSocket ticket (32 characters, 60 seconds, single use)',
        security: [{ apiKey: [] }],
        response: { 200: TicketResponse, ...errors(['auth_insufficient_credit', 'plan_daily_limit_reached'], { auth: true }) },
      },
    },
    async (request) => ok(await deps.tickets.issue(principalOf(request))),
  );
}
