/**
 * The voice-sample rate (30 per minute per account) is one count across the fleet: two app
 * instances sharing PostgreSQL and Redis (each its own Redis connections) answer 429
 * `too_many_requests` to the 31st request of a minute wherever the first 30 went. The limit
 * runs before the voice is looked up, so unknown voices (404) count too and nothing is
 * synthesized.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, createPgSchema, dropPgSchema, startTestApp, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);

describe.skipIf(!redisUrl || !pg)('voice-sample rate across two instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('30 samples a minute per account in all: the 31st is refused on either instance', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const open = async (): Promise<TestApp> => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-tts-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const t = await startTestApp({ backend: 'postgres', env: { REDIS_URL: redisUrl! }, reuse: { dataDir: dir, pgSchema } });
      cleanup.push(() => t.close());
      return t;
    };
    const [a, b] = [await open(), await open()];
    const key = (await a.app.deps.keys.createKey({})).api_key;
    const sample = (t: TestApp) => api(t.url, 'GET', '/api/v1/tts/voices/no-such-voice/sample', { key });
    for (let i = 0; i < 15; i++) {
      expect((await sample(a)).status).toBe(404);
      expect((await sample(b)).status).toBe(404);
    }
    for (const t of [a, b]) {
      const refused = await sample(t);
      expect(refused.status).toBe(429);
      expect(refused.body.data.error_code).toBe('too_many_requests');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  }, 60_000);
});
