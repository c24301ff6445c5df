/**
 * The viewer endpoints' abuse limits (spec Limits, "Viewer page and verify"), each provoked:
 * 20 unknown-channel lookups per source per minute; page + verify per source and channel
 * twice max_viewers per minute (at least 200); verify locked after 30 wrong passwords per
 * source (correct passwords never count; the lock is only on verify). Every refusal is 429
 * too_many_requests with Retry-After. Sources differ by X-Forwarded-For (PARLEY_TRUST_PROXY=1).
 * The channel-wide ceilings (many sources together) are in per-source.test.ts. The limits
 * live in the RateLimiter, not the database, so this suite runs on SQLite;
 * abuse-shared.test.ts runs them across two processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { clock, expect429, expectError, many, newBroadcast, randomIp, realKey, startBroadcastApp, viewer } from './support.js';

describe('viewer abuse limits (sqlite, in-process limiter)', () => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startBroadcastApp('sqlite', c, { PARLEY_TRUST_PROXY: '1' });
    key = (await realKey(t)).key;
  });
  afterAll(() => t?.close());

  const view = (token: string, ip: string) => viewer(t, 'GET', `/api/v1/viewer/broadcasts/${token}`, { ip });
  const verify = (token: string, password: string, ip: string) =>
    viewer(t, 'POST', `/api/v1/viewer/broadcasts/${token}/verify`, { ip, body: { password } });

  it('20 lookups of unknown channels per source per minute, then 429 for every lookup of that source (page and verify)', async () => {
    const b = await newBroadcast(t, key);
    const ip = randomIp();
    const unknown = await many(20, 5, (i) => (i % 2 ? view(`q${String(i).padStart(3, '0')}`, ip) : verify('!bad', 'x', ip)));
    for (const r of unknown) expectError(r, 401, 'broadcast_token_invalid');
    expect429(await view('qqqq', ip), 'unknown_channel_lookups');
    // A known channel is refused too: otherwise the answers would still tell tokens apart.
    expect429(await view(b.token, ip), 'unknown_channel_lookups');
    expect429(await verify(b.token, 'x', ip), 'unknown_channel_lookups');
    // Another source is not affected.
    expect((await view(b.token, randomIp())).status).toBe(200);
    expectError(await view('qqqq', randomIp()), 401, 'broadcast_token_invalid');
  });

  it('page and verify together: at least 200 per source and channel per minute, then 429 for that source on that channel only', async () => {
    const small = await newBroadcast(t, key, { max_viewers: 1 });
    const ip = randomIp();
    const rs = await many(200, 10, (i) => (i % 4 === 0 ? verify(small.token, 'x', ip) : view(small.token, ip)));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(200);
    expect429(await view(small.token, ip), 'source_channel_rate');
    expect429(await verify(small.token, 'x', ip), 'source_channel_rate');
    expect((await view((await newBroadcast(t, key)).token, ip)).status).toBe(200);
    expect((await view(small.token, randomIp())).status).toBe(200);
  }, 60_000);

  it('twice max_viewers per source and channel per minute when that is more than 200', async () => {
    const big = await newBroadcast(t, key, { max_viewers: 150 });
    const ip = randomIp();
    const rs = await many(300, 10, () => view(big.token, ip));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(300);
    expect429(await view(big.token, ip), 'source_channel_rate');
  }, 60_000);

  it('30 wrong passwords from one source lock its verifies (any channel, even the right password) but not its page lookups', async () => {
    const a = await newBroadcast(t, key, { access_type: 'password', pass_code: 'alpha1' });
    const other = await newBroadcast(t, key, { access_type: 'password', pass_code: 'beta22' });
    const ip = randomIp();
    const wrong = await many(30, 4, (i) => verify(i % 3 ? a.token : other.token, `nope${i}`, ip));
    for (const r of wrong) expectError(r, 401, 'broadcast_password_incorrect');
    expect429(await verify(a.token, 'alpha1', ip), 'wrong_passwords_source');
    expect429(await verify(other.token, 'beta22', ip), 'wrong_passwords_source');
    expect((await view(a.token, ip)).status).toBe(200);
    expect((await verify(a.token, 'alpha1', randomIp())).status).toBe(200);
  }, 60_000);

  it('correct passwords never count toward a lock', async () => {
    const a = await newBroadcast(t, key, { access_type: 'password', pass_code: 'omega5' });
    const ip = randomIp();
    const right = await many(40, 4, () => verify(a.token, 'omega5', ip));
    for (const r of right) expect(r.status).toBe(200);
    expectError(await verify(a.token, 'wrong', ip), 401, 'broadcast_password_incorrect');
  }, 60_000);
});
