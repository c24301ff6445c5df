/**
 * CORS by path, decided on every request (issue 19: @fastify/cors rebuilt and merged its
 * options objects for each request through its delegator; here the header values are
 * computed once). Same behaviour as the plugin configured before (test/platform/cors.test.ts):
 * - public paths (viewer, public token exchange, version, shared task pages): any origin,
 *   no credentials, methods GET, POST, OPTIONS;
 * - every other path: only origins in PARLEY_CORS_ORIGINS ("*" for any), echoed back;
 * - `Vary: Origin` where the answer depends on the origin: private routes (the origin is echoed
 *   or refused) and preflights (refused without one). A public route's answer is the same for
 *   every origin and without one ("*"), so it has no Vary: a cache may share it;
 * - preflights (OPTIONS) are answered here, before authentication: 204 with the methods and
 *   the request headers asked for, 400 when Origin or Access-Control-Request-Method is
 *   missing, 404 when the origin is not allowed.
 */
import type { FastifyReply } from 'fastify';
import type { HttpApp } from './types.js';

/** Content-Length is not listed: the Fetch standard exposes it to scripts already (a CORS-safelisted response header). */
const EXPOSED = 'Retry-After, X-Request-Id, Content-Range, Accept-Ranges';
const PUBLIC_METHODS = 'GET, POST, OPTIONS';
const PRIVATE_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) reply.header('Vary', field);
  else if (
    !String(current)
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes(field.toLowerCase())
  )
    reply.header('Vary', `${current}, ${field}`);
}

export function installCors(app: HttpApp, options: { corsOrigins: string[]; isPublicPath(url: string): boolean }): void {
  const allowAny = options.corsOrigins.includes('*');
  const allowed = new Set(options.corsOrigins);
  app.decorateRequest('corsPreflightEnabled', false);

  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    const isPublic = options.isPublicPath(request.url);
    // The first onRequest hook (server.ts installs it before any other): nothing set Vary yet.
    if (!isPublic || request.raw.method === 'OPTIONS') reply.header('Vary', 'Origin');
    let allowOrigin: string | null;
    if (isPublic) allowOrigin = '*';
    else allowOrigin = origin !== undefined && (allowAny || allowed.has(origin)) ? origin : null;
    if (allowOrigin === null) {
      done();
      return;
    }
    reply.header('Access-Control-Allow-Origin', allowOrigin);
    reply.header('Access-Control-Expose-Headers', EXPOSED);
    if (request.raw.method !== 'OPTIONS') {
      done();
      return;
    }
    if (!origin || !request.headers['access-control-request-method']) {
      reply.status(400).type('text/plain').send('Invalid Preflight Request');
      return;
    }
    request.corsPreflightEnabled = true;
    reply.header('Access-Control-Allow-Methods', isPublic ? PUBLIC_METHODS : PRIVATE_METHODS);
    addVary(reply, 'Access-Control-Request-Headers');
    const asked = request.headers['access-control-request-headers'];
    if (asked !== undefined) reply.header('Access-Control-Allow-Headers', asked);
    reply.code(204).header('Content-Length', '0').send();
  });

  // Lets preflights to any path reach the hook above; one from an origin not allowed is a 404.
  app.options('*', { schema: { hide: true } }, (request, reply) => {
    if (!request.corsPreflightEnabled) {
      reply.callNotFound();
      return;
    }
    reply.send();
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    corsPreflightEnabled: boolean;
  }
}
