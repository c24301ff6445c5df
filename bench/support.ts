/**
 * The real app for benchmarks: the same harness the tests use (real database, real HTTP
 * server on port 0), on PostgreSQL when DATABASE_URL is set and SQLite otherwise.
 */
import { openSync } from 'node:fs';
import { fdDestination } from '../src/platform/log-destination.js';
import { createLogger } from '../src/platform/logging.js';
import { startTestApp, type TestApp } from '../test/support/app.js';

export function benchBackendName(): string {
  return process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
}

/**
 * As production runs it: no test-only contract check, and logs at production's default level
 * (info; BENCH_LOG_LEVEL to change) written to /dev/null, so formatting and writing each log
 * line is part of the cost measured.
 */
export function startBenchApp(env: Record<string, string> = {}): Promise<TestApp> {
  const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'info', fdDestination(openSync('/dev/null', 'w')));
  return startTestApp({ backend: process.env.DATABASE_URL ? 'postgres' : 'sqlite', contract: false, logger, env });
}

/** mulberry32: a small seeded generator, so generated text is the same on every run. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
