/**
 * Test harness: builds the real app (real database, real HTTP server on port 0) from an
 * explicit environment, never from the developer's shell. `backends()` lists SQLite always
 * and PostgreSQL when DATABASE_URL is set; with PARLEY_TEST_REQUIRE_SERVICES=1 (CI) a
 * PostgreSQL that cannot be reached fails the run instead of skipping.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { type BuildOverrides, buildApp, type ParleyApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logging.js';
import { installContract } from './contract.js';

export type Backend = 'sqlite' | 'postgres';

const PG_URL = process.env.DATABASE_URL;

/** Backends the behaviour suites run on. */
export function backends(): Backend[] {
  if (PG_URL) return ['sqlite', 'postgres'];
  if (process.env.PARLEY_TEST_REQUIRE_SERVICES === '1') throw new Error('PARLEY_TEST_REQUIRE_SERVICES=1 but DATABASE_URL is not set');
  console.warn('DATABASE_URL not set: PostgreSQL suites skipped (set it to run them, e.g. postgres://postgres@127.0.0.1:5432/test)');
  return ['sqlite'];
}

export interface TestApp {
  app: ParleyApp;
  /** http://127.0.0.1:PORT */
  url: string;
  config: Config;
  dataDir: string;
  backend: Backend;
  /** The PostgreSQL schema (postgres backend): with dataDir, what `reuse` takes to open a second app on the same data. */
  pgSchema?: string;
  close(): Promise<void>;
}

export interface TestAppOptions extends Omit<BuildOverrides, 'pgSchema'> {
  backend?: Backend;
  /** Extra environment for loadConfig (PORT, DATA_DIR and DATABASE_URL are set by the harness). */
  env?: Record<string, string>;
  /** Reuse an existing data dir / PG schema (restart tests). */
  reuse?: { dataDir: string; pgSchema?: string };
  /** Routes a test adds before the server listens (e.g. a raw stream route over the app's deps). */
  routes?: (app: ParleyApp) => void;
  /** Check every response against the declared contract (default on; benchmarks turn it off to measure what production runs). */
  contract?: boolean;
}

/** Creates a fresh PostgreSQL schema and returns its name. */
export async function createPgSchema(): Promise<string> {
  if (!PG_URL) throw new Error('DATABASE_URL not set');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`create schema ${name}`);
  } finally {
    await client.end();
  }
  return name;
}

export async function dropPgSchema(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${name} cascade`);
  } finally {
    await client.end();
  }
}

export function testConfig(dataDir: string, backend: Backend, env: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PARLEY_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.PARLEY_TEST_LOG_LEVEL ?? 'silent',
    PARLEY_WEBHOOK_ALLOW_PRIVATE: '1',
    // Test apps sharing one Redis keep their jobs apart (a restarted app reuses its data folder, so its queue too).
    PARLEY_JOB_QUEUE_PREFIX: `parley-test:${basename(dataDir)}`,
    ...(backend === 'postgres' ? { DATABASE_URL: PG_URL! } : {}),
    ...env,
  });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const backend = options.backend ?? 'sqlite';
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-test-'));
  const pgSchema = backend === 'postgres' ? (options.reuse?.pgSchema ?? (await createPgSchema())) : undefined;
  const config = testConfig(dataDir, backend, options.env);
  const logger = options.logger ?? createLogger(config.platform.logLevel);
  const app = await buildApp(config, { ...options, logger, pgSchema });
  if (options.contract !== false) installContract(app.http);
  options.routes?.(app);
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    config,
    dataDir,
    backend,
    pgSchema,
    async close() {
      await app.close();
      if (!options.reuse) {
        if (pgSchema) await dropPgSchema(pgSchema);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** fetch + JSON body, for readable tests. */
export async function api(
  base: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies freely
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
