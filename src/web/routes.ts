/**
 * The web client (web/): the console at `/` (web/index.html and the bundle built from
 * web/console/ by scripts/build-console.ts into web/build/console.js), served by the api role
 * at `/` and `/web/*`; and the broadcast pages for viewers, `/b/{token}` (the viewer page) and
 * `/b/{token}/overlay` (captions on a transparent page for OBS). Only the files listed here
 * are served, with a strict Content-Security-Policy (scripts and connections to this origin
 * only, no inline scripts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpApp } from '../platform/http/types.js';

const ROOT = join(import.meta.dirname, '..', '..', 'web');
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'viewer.html': 'text/html; charset=utf-8',
  'viewer.js': 'text/javascript; charset=utf-8',
  'viewer.css': 'text/css; charset=utf-8',
  'overlay.html': 'text/html; charset=utf-8',
  'overlay.js': 'text/javascript; charset=utf-8',
  'overlay.css': 'text/css; charset=utf-8',
  'captions.js': 'text/javascript; charset=utf-8',
  'display.js': 'text/javascript; charset=utf-8',
};
/**
 * Built files: read when asked (a rebuild is served without a restart), and a clear 503 when
 * the build has not run (the server still starts: the API does not need the console).
 */
const BUILT: Record<string, { path: string; type: string }> = {
  'console.js': { path: join(ROOT, 'build', 'console.js'), type: 'text/javascript; charset=utf-8' },
};
const CSP =
  "default-src 'self'; connect-src 'self' ws: wss:; media-src 'self' blob:; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
/**
 * The broadcast pages hold no key and may be embedded in an event's own site (frame-ancestors
 * any); they talk only to this origin (the viewer endpoints and the caption stream).
 */
const VIEWER_CSP =
  "default-src 'self'; connect-src 'self'; media-src 'self' blob:; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors *";

export function registerWebRoutes(app: HttpApp): void {
  // Read once: the files are part of the release.
  const bodies = new Map(Object.keys(FILES).map((name) => [name, readFileSync(join(ROOT, name))]));
  const send =
    (name: string, csp = CSP) =>
    async (_request: unknown, reply: import('fastify').FastifyReply) =>
      reply
        .type(FILES[name] as string)
        .header('Content-Security-Policy', csp)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-cache')
        .send(bodies.get(name));
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, send('index.html'));
  // Any token gets the page: an unknown or malformed one is told so by the page, from the
  // viewer endpoints (which count it against the source's unknown-channel limit).
  app.get('/b/:token', hidden, send('viewer.html', VIEWER_CSP));
  app.get('/b/:token/overlay', hidden, send('overlay.html', VIEWER_CSP));
  app.get<{ Params: { file: string } }>('/web/:file', hidden, async (request, reply) => {
    const name = request.params.file;
    const built = Object.hasOwn(BUILT, name) ? BUILT[name] : undefined;
    if (built) {
      if (!existsSync(built.path))
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The console is not built: run `npm run setup` (scripts/build-console.ts).');
      return reply
        .type(built.type)
        .header('Content-Security-Policy', CSP)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-cache')
        .send(readFileSync(built.path));
    }
    if (!Object.hasOwn(FILES, name)) throw new AppError('not_found', { message: 'No such file.' });
    return send(name)(request, reply);
  });
}
