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
import type { CounterSeries, HistogramSeries } from './bound-series.js';
import type { Metrics } from './metrics.js';

/** Route templates, never raw URLs (ids in paths would make a series per task); unknown paths share one. */
const routeOf = (config: { url?: string } | undefined) => config?.url ?? '(unmatched)';

/** One route's series, bound once: its timing and a counter per method and status seen. */
interface RouteSeries {
  counted: Map<string, CounterSeries>;
  timed: Map<string, HistogramSeries>;
}

export function installHttpMetrics(app: HttpApp, metrics: Metrics): void {
  // Keyed by the route's config object (one per route, the same for every request of it): an
  // identity lookup, no key string built per request.
  const byRoute = new WeakMap<object, RouteSeries>();
  const unrouted = {};
  app.addHook('onResponse', (request, reply, done) => {
    const config = request.routeOptions.config as { url?: string } | undefined;
    const routeKey = config ?? unrouted;
    let route = byRoute.get(routeKey);
    if (!route) {
      route = { counted: new Map(), timed: new Map() };
      byRoute.set(routeKey, route);
    }
    const method = request.method;
    const status = reply.statusCode;
    const countKey = method + status;
    let counter = route.counted.get(countKey);
    if (!counter) {
      counter = metrics.httpRequests.series({ method, route: routeOf(config), status: String(status) });
      route.counted.set(countKey, counter);
    }
    counter.value += 1;
    // An SSE stream's duration is how long it stayed open, not a latency: it has its own histogram.
    const type = reply.raw.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('text/event-stream')) {
      let histogram = route.timed.get(method);
      if (!histogram) {
        histogram = metrics.httpSeconds.series({ method, route: routeOf(config) });
        route.timed.set(method, histogram);
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
