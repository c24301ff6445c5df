/**
 * Every Prometheus series Parley exposes, defined in one place (prom-client, one registry
 * per app). Events are counted through the observer functions below, handed to the parts
 * that see them as ports (HTTP hooks, the SSE observer, the engine registry, billing); state
 * (sessions, jobs, webhooks, viewers) is read when scraped (state.ts). Names and labels are
 * listed in docs/metrics.md; the Grafana dashboard (docs/grafana-dashboard.json) uses them.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { BoundCounter, BoundHistogram } from './bound-series.js';

/** Seconds; request paths are mostly milliseconds, engines seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const ENGINE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const STREAM_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400];

export type EngineObserver = (e: { kind: string; engine: string; operation: string; seconds: number; ok: boolean }) => void;
export type ChargeObserver = (usageType: string, points: number) => void;
export interface SseObserver {
  opened(route: string, method?: string, status?: number): void;
  closed(route: string, seconds: number): void;
}

export class Metrics {
  readonly registry = new Registry();

  // The two per-request families are bound-series families (bound-series.ts): no label hashing per request.
  readonly httpRequests = new BoundCounter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests answered (an SSE stream counts when it ends), by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registry: this.registry,
  });
  readonly httpSeconds = new BoundHistogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from request to complete response (not SSE streams: see parley_sse_stream_duration_seconds).',
    labelNames: ['method', 'route'],
    buckets: HTTP_BUCKETS,
    registry: this.registry,
  });
  readonly sseOpened = new Counter({
    name: 'parley_sse_streams_opened_total',
    help: 'SSE streams opened, by route template.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly sseClosed = new Counter({
    name: 'parley_sse_streams_closed_total',
    help: 'SSE streams ended (client gone, stream done or cut off), by route template. Open = opened - closed.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly sseOpen = new Gauge({
    name: 'parley_sse_streams_open',
    help: 'SSE streams open now in this process, by route template.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly sseSeconds = new Histogram({
    name: 'parley_sse_stream_duration_seconds',
    help: 'How long SSE streams stayed open.',
    labelNames: ['route'] as const,
    buckets: STREAM_BUCKETS,
    registers: [this.registry],
  });
  readonly engineSeconds = new Histogram({
    name: 'parley_engine_duration_seconds',
    help: 'Engine calls: file recognition (transcribe), translation (translate), TTS (synthesize), summaries (summarize), language models (chat); outcome ok or error.',
    labelNames: ['kind', 'engine', 'operation', 'outcome'] as const,
    buckets: ENGINE_BUCKETS,
    registers: [this.registry],
  });
  readonly creditCharged = new Counter({
    name: 'parley_credit_charged_points_total',
    help: 'Credit points charged (not duplicates, not unlimited authorizations), by usage type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Process CPU, memory, event-loop delay, GC: what a slow server is diagnosed with first.
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }

  readonly observeEngine: EngineObserver = ({ kind, engine, operation, seconds, ok }) => {
    this.engineSeconds.observe({ kind, engine, operation, outcome: ok ? 'ok' : 'error' }, seconds);
  };

  readonly observeCharge: ChargeObserver = (type, points) => {
    if (points > 0) this.creditCharged.inc({ type }, points);
  };

  readonly sse: SseObserver = {
    opened: (route) => {
      this.sseOpened.inc({ route });
      this.sseOpen.inc({ route });
    },
    closed: (route, seconds) => {
      this.sseClosed.inc({ route });
      this.sseOpen.dec({ route });
      this.sseSeconds.observe({ route }, seconds);
    },
  };
}
