/**
 * Counter and histogram families for the per-request hot path: a label set is bound once to a
 * plain series object, and each event is then a field update. prom-client's own families hash
 * the label set on every inc()/observe(), even through a labels() child (about 2.6 µs of a
 * /version request's ~45 µs, issue 30). These families register in the same prom-client
 * registry and render the same exposition lines (counter; histogram with _bucket, _sum, _count).
 */
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface Family<S> {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry: Registry;
  create(): S;
}

/** What prom-client's registry reads from a metric: name, help, type and get() / reset(). */
abstract class BoundFamily<S> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly bound = new Map<string, { labels: Labels; series: S }>();
  readonly #labelNames: readonly string[];
  readonly #create: () => S;

  constructor(family: Family<S>) {
    this.name = family.name;
    this.help = family.help;
    this.#labelNames = family.labelNames;
    this.#create = family.create;
    family.registry.registerMetric(this as never);
  }

  /** The series of one label set, created on first use; callers keep it and update it directly. */
  series(labels: Labels): S {
    const values = this.#labelNames.map((name) => {
      const value = labels[name];
      if (value === undefined) throw new Error(`${this.name}: label ${name} missing`);
      return value;
    });
    const key = JSON.stringify(values);
    let entry = this.bound.get(key);
    if (!entry) {
      entry = { labels: Object.fromEntries(this.#labelNames.map((n, i) => [n, values[i]!])), series: this.#create() };
      this.bound.set(key, entry);
    }
    return entry.series;
  }

  protected abstract valuesOf(labels: Labels, series: S): { labels: Labels; value: number; metricName?: string }[];

  async get() {
    const values = [...this.bound.values()].flatMap(({ labels, series }) => this.valuesOf(labels, series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every series (a registry reset); series objects held by callers stay valid. */
  abstract reset(): void;
}

export interface CounterSeries {
  value: number;
}

export class BoundCounter extends BoundFamily<CounterSeries> {
  readonly type = 'counter';

  constructor(options: { name: string; help: string; labelNames: readonly string[]; registry: Registry }) {
    super({ ...options, create: () => ({ value: 0 }) });
  }

  protected valuesOf(labels: Labels, series: CounterSeries) {
    return [{ labels, value: series.value }];
  }

  reset(): void {
    for (const { series } of this.bound.values()) series.value = 0;
  }
}

/** One histogram series: a count per bucket (not cumulative), the sum and the count. */
export class HistogramSeries {
  readonly perBucket: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly upperBounds: readonly number[]) {
    this.perBucket = new Float64Array(upperBounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    // Bounds are few (13 for HTTP): a linear scan beats a binary search at this size.
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.perBucket[i]! += 1;
        return;
      }
    }
  }
}

export class BoundHistogram extends BoundFamily<HistogramSeries> {
  readonly type = 'histogram';
  readonly #upperBounds: readonly number[];

  constructor(options: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registry: Registry }) {
    const upperBounds = [...options.buckets].sort((a, b) => a - b);
    super({ ...options, create: () => new HistogramSeries(upperBounds) });
    this.#upperBounds = upperBounds;
  }

  protected valuesOf(labels: Labels, series: HistogramSeries) {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    const lines: { labels: Labels; value: number; metricName: string }[] = this.#upperBounds.map((le, i) => {
      cumulative += series.perBucket[i]!;
      return { labels: { ...labels, le: String(le) }, value: cumulative, metricName: bucket };
    });
    lines.push(
      { labels: { ...labels, le: '+Inf' }, value: series.count, metricName: bucket },
      { labels, value: series.sum, metricName: `${this.name}_sum` },
      { labels, value: series.count, metricName: `${this.name}_count` },
    );
    return lines;
  }

  reset(): void {
    for (const { series } of this.bound.values()) {
      series.perBucket.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
