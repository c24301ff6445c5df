/**
 * The web client (web/): a page for live captions, imports and downloads, served as static
 * files by the api role at `/` and `/web/*`. Only the files listed here are served, with a
 * strict Content-Security-Policy (scripts and connections to this origin only).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpApp } from '../platform/http/types.js';

const ROOT = join(import.meta.dirname, '..', '..', 'web');
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};
const CSP =
  "default-src 'self'; connect-src 'self' ws: wss:; media-src 'self' blob:; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function registerWebRoutes(app: HttpApp): void {
  // Read once: the files are part of the release.
  const bodies = new Map(Object.keys(FILES).map((name) => [name, readFileSync(join(ROOT, name))]));
  const send = (name: string) => async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .type(FILES[name] as string)
      .header('Content-Security-Policy', CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'no-cache')
      .send(bodies.get(name));
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, send('index.html'));
  app.get<{ Params: { file: string } }>('/web/:file', hidden, async (request, reply) => {
    const name = request.params.file;
    if (!Object.hasOwn(FILES, name)) throw new AppError('not_found', { message: 'No such file.' });
    return send(name)(request, reply);
  });
}
