/**
 * The per-request metric families (src/metrics/bound-series.ts) expose exactly what
 * prom-client's own Counter and Histogram expose for the same events: same lines, same values
 * (label order aside), including bucket edges, +Inf, and label values that need escaping.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BoundCounter, BoundHistogram } from '../../src/metrics/bound-series.js';

/** Exposition lines as comparable strings: name, labels sorted by name, value. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(l);
      if (!m) throw new Error(`not an exposition line: ${l}`);
      const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => `${x[1]}=${x[2]}`).sort();
      return `${m[1]}{${labels.join(',')}} ${m[3]}`;
    })
    .sort();
}

const BUCKETS = [0.001, 0.01, 0.1, 1];
const SAMPLES = [0.0005, 0.001, 0.0011, 0.01, 0.3, 1, 7];

describe('bound series', () => {
  it('render what prom-client renders for the same counts and observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const c1 = new BoundCounter({ name: 'x_total', help: 'h', labelNames: ['method', 'route', 'status'], registry: ours });
    const c2 = new Counter({ name: 'x_total', help: 'h', labelNames: ['method', 'route', 'status'], registers: [theirs] });
    const h1 = new BoundHistogram({ name: 'x_seconds', help: 'h', labelNames: ['method', 'route'], buckets: BUCKETS, registry: ours });
    const h2 = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [theirs] });

    const routes = ['/a', '/b/:id', 'quote"and\\back\nslash'];
    for (const [i, route] of routes.entries()) {
      const series = c1.series({ method: 'GET', route, status: '200' });
      for (let n = 0; n <= i; n++) {
        series.value += 1;
        c2.inc({ method: 'GET', route, status: '200' });
      }
      const timed = h1.series({ method: 'GET', route });
      for (const s of SAMPLES.slice(i)) {
        timed.observe(s);
        h2.observe({ method: 'GET', route }, s);
      }
    }
    // The same label set gives back the same series.
    expect(c1.series({ status: '200', route: '/a', method: 'GET' })).toBe(c1.series({ method: 'GET', route: '/a', status: '200' }));
    const got = lines(await ours.metrics());
    expect(got).toEqual(lines(await theirs.metrics()));
    expect(got).toContain('x_seconds_bucket{le=+Inf,method=GET,route=/a} 7');
    expect(got).toContain('x_seconds_bucket{le=0.001,method=GET,route=/a} 2');
    expect(got).toContain('x_total{method=GET,route=/b/:id,status=200} 2');
  });

  it('reset zeroes every series and the held series keep counting', async () => {
    const registry = new Registry();
    const c = new BoundCounter({ name: 'y_total', help: 'h', labelNames: ['k'], registry });
    const h = new BoundHistogram({ name: 'y_seconds', help: 'h', labelNames: ['k'], buckets: [1], registry });
    const cs = c.series({ k: 'v' });
    const hs = h.series({ k: 'v' });
    cs.value += 5;
    hs.observe(0.5);
    registry.resetMetrics();
    cs.value += 1;
    hs.observe(2);
    expect(lines(await registry.metrics())).toEqual(
      [
        'y_total{k=v} 1',
        'y_seconds_bucket{k=v,le=1} 0',
        'y_seconds_bucket{k=v,le=+Inf} 1',
        'y_seconds_sum{k=v} 2',
        'y_seconds_count{k=v} 1',
      ].sort(),
    );
  });

  it('refuses a label set without one of its labels', () => {
    const c = new BoundCounter({ name: 'z_total', help: 'h', labelNames: ['a', 'b'], registry: new Registry() });
    expect(() => c.series({ a: '1' })).toThrow(/label b missing/);
  });
});
