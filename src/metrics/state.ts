/**
 * Gauges read when Prometheus scrapes, from the shared state every process sees (database,
 * job queue, viewer seats), so any process answers for the whole deployment and nothing has
 * to be counted along the way. A scrape that cannot read one of them leaves that gauge empty
 * rather than failing the whole scrape.
 */
import { Gauge } from 'prom-client';
import type { SeatCounts } from '../broadcasts/seats.js';
import type { JobQueueStats } from '../jobs/types.js';
import type { Metrics } from './metrics.js';
import type { CountBy, MetricsStore } from './store.js';

export interface StateSources {
  store: MetricsStore;
  jobStats(): Promise<JobQueueStats[]>;
  seatCounts(broadcastId: string): Promise<SeatCounts>;
}

const LIVE_STATUSES = ['recording', 'processing'];
const WEBHOOK_STATUSES = ['pending', 'waiting', 'delivered', 'failed'];

export function registerStateGauges(metrics: Metrics, sources: StateSources): void {
  const registers = [metrics.registry];
  const countsGauge = (name: string, help: string, label: string, known: string[], read: () => Promise<CountBy[]>) =>
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers,
      async collect() {
        this.reset();
        const rows = await read().catch(() => null);
        if (!rows) return;
        // Known states are always present (0), so a panel shows a flat line, not a gap.
        for (const k of known) this.set({ [label]: k }, 0);
        for (const r of rows) this.set({ [label]: r.label }, r.n);
      },
    });

  countsGauge(
    'parley_live_sessions',
    'Live sessions (realtime and broadcast recordings) not finished, by task status: recording, processing (finalizing).',
    'status',
    LIVE_STATUSES,
    () => sources.store.liveSessions(),
  );
  countsGauge(
    'parley_webhook_deliveries',
    'Webhook deliveries in the outbox by outcome: pending, waiting (behind an earlier one), delivered, failed (gave up).',
    'status',
    WEBHOOK_STATUSES,
    () => sources.store.webhookDeliveries(),
  );

  // Job queue depth and age: read once per scrape for the four gauges.
  let jobsRead: Promise<JobQueueStats[] | null> | null = null;
  const jobs = () => {
    jobsRead ??= sources.jobStats().catch(() => null);
    return jobsRead;
  };
  const jobGauge = (name: string, help: string, pick: (s: JobQueueStats) => number, last = false) =>
    new Gauge({
      name,
      help,
      labelNames: ['name'],
      registers,
      async collect() {
        this.reset();
        const stats = await jobs();
        if (last) jobsRead = null; // the next scrape reads again
        for (const s of stats ?? []) this.set({ name: s.name }, pick(s));
      },
    });
  jobGauge('parley_jobs_waiting', 'Jobs due and not yet taken by a worker, by job name.', (s) => s.waiting);
  jobGauge('parley_jobs_running', 'Jobs a worker is running, by job name.', (s) => s.running);
  jobGauge('parley_jobs_delayed', 'Jobs scheduled for later (retry backoff, delays), by job name.', (s) => s.delayed);
  jobGauge(
    'parley_jobs_oldest_waiting_seconds',
    'How long the oldest waiting job has been due, by job name.',
    (s) => s.oldestWaitingSeconds,
    true,
  );

  // Viewers per running broadcast (seats are shared across processes through Redis when configured).
  let seatsRead: Promise<Array<{ id: string; counts: SeatCounts }> | null> | null = null;
  const seats = () => {
    seatsRead ??= sources.store
      .activeBroadcasts()
      .then((ids) => Promise.all(ids.map(async (id) => ({ id, counts: await sources.seatCounts(id) }))))
      .catch(() => null);
    return seatsRead;
  };
  new Gauge({
    name: 'parley_broadcast_viewers',
    help: 'Viewers holding a seat, per running broadcast.',
    labelNames: ['broadcast_id'],
    registers,
    async collect() {
      this.reset();
      for (const b of (await seats()) ?? []) this.set({ broadcast_id: b.id }, b.counts.viewers);
    },
  });
  new Gauge({
    name: 'parley_broadcast_viewers_queued',
    help: 'Viewers waiting for a seat, per running broadcast.',
    labelNames: ['broadcast_id'],
    registers,
    async collect() {
      this.reset();
      const all = await seats();
      seatsRead = null;
      for (const b of all ?? []) this.set({ broadcast_id: b.id }, b.counts.queued);
    },
  });
}
