/**
 * The viewer abuse limits hold across processes: two app instances sharing PostgreSQL and
 * Redis (the RateLimiter of each is its own Redis connection). Requests split between them
 * count together: unknown lookups, a source's channel rate and wrong passwords.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { clock, expect429, expectError, many, newBroadcast, randomIp, realKey, startBroadcastApp, viewer } from './support.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);

describe.skipIf(!redisUrl || !pg)('viewer abuse limits across two instances (PostgreSQL + Redis)', () => {
  const c = clock('2026-05-01T10:00:00.000Z');
  const cleanup: (() => unknown)[] = [];
  let a: TestApp;
  let b: TestApp;
  let key: string;
  beforeAll(async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-bc-a-')), mkdtempSync(join(tmpdir(), 'parley-bc-b-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const env = { REDIS_URL: redisUrl!, PARLEY_TRUST_PROXY: '1' };
    a = await startBroadcastApp('postgres', c, env, { dataDir: dirs[0]!, pgSchema });
    cleanup.push(() => a.close());
    b = await startBroadcastApp('postgres', c, env, { dataDir: dirs[1]!, pgSchema });
    cleanup.push(() => b.close());
    key = (await realKey(a)).key;
  });
  afterAll(async () => {
    for (const f of cleanup.reverse()) await f();
  });

  const on = (i: number) => (i % 2 ? b : a);

  it('unknown-channel lookups from one source count on both instances', async () => {
    const ip = randomIp();
    const rs = await many(20, 4, (i) => viewer(on(i), 'GET', `/api/v1/viewer/broadcasts/u${String(i).padStart(3, '0')}`, { ip }));
    for (const r of rs) expectError(r, 401, 'broadcast_token_invalid');
    expect429(await viewer(a, 'GET', '/api/v1/viewer/broadcasts/uuuu', { ip }), 'unknown_channel_lookups');
    expect429(await viewer(b, 'GET', '/api/v1/viewer/broadcasts/uuuu', { ip }), 'unknown_channel_lookups');
  });

  it("a source's channel rate counts page lookups on both instances", async () => {
    const ch = await newBroadcast(a, key, { max_viewers: 1 });
    const ip = randomIp();
    const rs = await many(200, 10, (i) => viewer(on(i), 'GET', `/api/v1/viewer/broadcasts/${ch.token}`, { ip }));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(200);
    expect429(await viewer(b, 'GET', `/api/v1/viewer/broadcasts/${ch.token}`, { ip }), 'source_channel_rate');
    expect429(await viewer(a, 'GET', `/api/v1/viewer/broadcasts/${ch.token}`, { ip }), 'source_channel_rate');
  }, 60_000);

  it('wrong passwords from one source count on both instances', async () => {
    const ch = await newBroadcast(a, key, { access_type: 'password', pass_code: 'shared1' });
    const ip = randomIp();
    const verify = (app: TestApp, password: string) =>
      viewer(app, 'POST', `/api/v1/viewer/broadcasts/${ch.token}/verify`, { ip, body: { password } });
    const rs = await many(30, 4, (i) => verify(on(i), `no${i}`));
    for (const r of rs) expectError(r, 401, 'broadcast_password_incorrect');
    expect429(await verify(a, 'shared1'), 'wrong_passwords_source');
    expect429(await verify(b, 'shared1'), 'wrong_passwords_source');
  }, 60_000);
});
