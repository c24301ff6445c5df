/**
 * The real app for benchmarks: the same harness the tests use (real database, real HTTP
 * server on port 0), on PostgreSQL when DATABASE_URL is set and SQLite otherwise.
 */
import { startTestApp, type TestApp } from '../test/support/app.js';

export function benchBackendName(): string {
  return process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
}

export function startBenchApp(): Promise<TestApp> {
  return startTestApp({ backend: process.env.DATABASE_URL ? 'postgres' : 'sqlite' });
}
