/**
 * `GET /asyncapi.json` (the document src/asyncapi.ts assembles: the WebSocket protocol of
 * src/realtime/asyncapi.ts and the viewers' stream) and `GET /asyncapi`,
 * a page that renders it with no build step (web/docs/). Served by every role: the document
 * describes the real-time host, and the REST host links to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpApp } from '../platform/http/types.js';

const DIR = join(import.meta.dirname, '..', '..', 'web', 'docs');
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'";

export function registerAsyncApiRoutes(app: HttpApp, document: object): void {
  const hidden = { schema: { hide: true } };
  app.get('/asyncapi.json', hidden, async () => document);
  const file = (name: string, type: string) => {
    const body = readFileSync(join(DIR, name));
    return async (_request: unknown, reply: import('fastify').FastifyReply) =>
      reply.type(type).header('Content-Security-Policy', CSP).header('Cache-Control', 'no-cache').send(body);
  };
  app.get('/asyncapi', hidden, file('asyncapi.html', 'text/html; charset=utf-8'));
  app.get('/asyncapi.js', hidden, file('asyncapi.js', 'text/javascript; charset=utf-8'));
}
