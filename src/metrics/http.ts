/**
 * Metrics over HTTP: counting requests and SSE streams (hooks on the app, installed before
 * any route), and serving the registry in Prometheus text format, on the main port behind a
 * bearer token or on a separate listener (PARLEY_METRICS_TOKEN, PARLEY_METRICS_LISTEN).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { AppError, renderErrorBody } from '../platform/errors/app-error.js';
import { errors } from '../platform/http/api-doc.js';
import type { HttpApp } from '../platform/http/types.js';
import type { Metrics } from './metrics.js';

/** Route templates, never raw URLs (ids in paths would make a series per task); unknown paths share one. */
const routeOf = (r: { routeOptions: { url?: string } }) => r.routeOptions.url ?? '(unmatched)';

export function installHttpMetrics(app: HttpApp, metrics: Metrics): void {
  // Label-bound series kept by (method, route, status): prom-client would otherwise hash the
  // label set on every request (a bounded set: methods x route templates x statuses).
  const counted = new Map<string, { inc(): void }>();
  const timed = new Map<string, { observe(seconds: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    const method = request.method;
    const status = reply.statusCode;
    const countKey = `${method} ${status} ${route}`;
    let counter = counted.get(countKey);
    if (!counter) {
      counter = metrics.httpRequests.labels({ method, route, status: String(status) });
      counted.set(countKey, counter);
    }
    counter.inc();
    // An SSE stream's duration is how long it stayed open, not a latency: it has its own histogram.
    const type = reply.raw.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('text/event-stream')) {
      const timeKey = `${method} ${route}`;
      let histogram = timed.get(timeKey);
      if (!histogram) {
        histogram = metrics.httpSeconds.labels({ method, route });
        timed.set(timeKey, histogram);
      }
      histogram.observe(reply.elapsedTime / 1000);
    }
    done();
  });
  // Opened and closed streams: src/platform/http/sse.ts reports them through this port.
  app.decorate('sseObserver', { opened: metrics.sse.opened, closed: metrics.sse.closed });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** GET /metrics on the main port (only when a token is configured and no separate listener). */
export function registerMetricsRoute(app: HttpApp, metrics: Metrics, token: string): void {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['metrics'],
        summary: 'Prometheus metrics (text format 0.0.4); Authorization: Bearer PARLEY_METRICS_TOKEN',
        security: [],
        response: {
          200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errors(['metrics_unauthorized']),
        },
      },
    },
    async (request, reply) => {
      if (!tokenMatches(request.headers.authorization, token)) throw new AppError('metrics_unauthorized');
      reply.type(CONTENT_TYPE);
      return metrics.registry.metrics();
    },
  );
}

/** A listener of its own that serves only GET /metrics (PARLEY_METRICS_LISTEN). */
export async function startMetricsListener(
  metrics: Metrics,
  options: { host: string; port: number; token?: string },
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const fail = (err: AppError) => {
      res.writeHead(err.status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(renderErrorBody(err, 'standard')));
    };
    if (req.method !== 'GET' || path !== '/metrics') return fail(new AppError('not_found'));
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) return fail(new AppError('metrics_unauthorized'));
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': CONTENT_TYPE });
        res.end(text);
      },
      () => fail(new AppError('internal_error')),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
