/**
 * The HTTP server factory: Fastify with request ids, the error registry mapping, CORS per
 * route family, OpenAPI, and the JSON conventions of the spec. Start-up (listen, signals)
 * is elsewhere (`src/main.ts`), so tests build the same server in-process.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { jsonBoundsProblem } from '../json-bounds.js';
import { installCors } from './cors.js';
import { clientErrorResponse, installErrorHandling } from './errors.js';
import { lazyChildLoggers } from './lazy-logger.js';
import { openApiOptions } from './openapi.js';
import { encodeBody } from './reply.js';
import { installRequestLog, type RequestLogMode } from './request-log.js';
import { closeAllSse, type SseStream } from './sse.js';
import type { HttpApp } from './types.js';

export interface HttpServerOptions {
  logger: Logger;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /** Origins allowed on private (authenticated) routes; "*" allows any. */
  corsOrigins: string[];
  version: string;
  /** Which requests get their one log line (src/platform/http/request-log.ts). */
  requestLog: RequestLogMode;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Routes that browsers on any domain may call without credentials (viewer pages, public
 * token exchange, version). Decided by path so CORS preflight requests match too.
 */
const PUBLIC_PREFIXES = ['/api/v1/viewer/', '/api/v1/public/', '/broadcast/', '/api/v1/version', '/version', '/tasks/'];

const PUBLIC_EXACT = new Set(PUBLIC_PREFIXES.map((p) => p.replace(/\/$/, '')));

export function isPublicPath(url: string): boolean {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return PUBLIC_EXACT.has(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

export async function createHttpServer(options: HttpServerOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger,
    // Fastify writes two lines per request; ours writes one (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // Request loggers are built only when a request logs something (lazy-logger.ts).
    childLoggerFactory: lazyChildLoggers() as never,
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // 431 and malformed requests in the standard error shape (Node answers them before Fastify).
    clientErrorHandler: (err, socket) => {
      if (socket.writable) socket.end(clientErrorResponse(err));
      else socket.destroy(err);
    },
    // Fastify answers a path parameter over 100 characters with a bare 414; a long (or long
    // once percent-encoded) voice name or task id must reach its route and get the route's
    // own 404. Request lines stay bounded by Node's header limit.
    routerOptions: { maxParamLength: 2000 },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;
  // This server's open SSE streams (sse.ts): ended by the graceful close below.
  app.decorate('sseStreams', new Set<SseStream>());

  // Graceful close: in-flight requests finish; their keep-alive connections are told to
  // close with the response and idle ones are closed as they appear, so close() does not
  // wait for clients' keep-alive timers.
  let closing = false;
  let reaper: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    closeAllSse(app);
    app.server.closeIdleConnections();
    reaper = setInterval(() => app.server.closeIdleConnections(), 50);
    reaper.unref();
  });
  app.addHook('onClose', async () => {
    if (reaper) clearInterval(reaper);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
  installErrorHandling(app);
  // Every JSON body is bounded in depth and size before schema validation or a handler walks
  // it (src/platform/json-bounds.ts); the answer is the one for any other bad body.
  // A callback hook, not an async one: it runs on every request, and most (GETs) have no body.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined || !/json/i.test(request.headers['content-type'] ?? '')) {
      done();
      return;
    }
    const problem = jsonBoundsProblem(request.body);
    if (!problem) {
      done();
      return;
    }
    done(
      new AppError('validation_failed', {
        message: problem.message,
        details: { field: 'body', reason: problem.reason, limit: problem.limit },
      }),
    );
  });
  installRequestLog(app, options.requestLog);
  // Response schemas document the interface and are checked by the contract test; they must
  // never change a body (fast-json-stringify would drop undeclared fields and coerce types).
  // Shared answers (reply.ts, okShared) are encoded once.
  app.setSerializerCompiler(() => encodeBody);

  installCors(app, { corsOrigins: options.corsOrigins, isPublicPath });

  await app.register(swagger, openApiOptions(options.version));
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs' });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  return app;
}
