/**
 * Limits per source, not per target (issue 26, findings 3 and 4), over real HTTP against a
 * real server: one source (an address, by X-Forwarded-For with PARLEY_TRUST_PROXY=1; or one
 * viewer_access_token) holds at most its share of a broadcast's seats and queue places while
 * other sources still get in; one source's lookups or wrong passwords never lock a channel
 * for the others, while a source guessing passwords is still locked, and many sources
 * together still meet the channel's ceiling. In process, and with REDIS_URL on Redis (the
 * rate limiter and the seats are then Redis's).
 *
 * The channel ceilings are lowered here (3 sources' worth of lookups, 150 wrong passwords) so
 * that reaching them takes a few hundred requests; the defaults (10 sources, 1000) only
 * raise them further.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import {
  clock,
  expect429,
  expectError,
  many,
  newBroadcast,
  onAir,
  openViewer,
  randomIp,
  realKey,
  startBroadcastApp,
  type ViewerClient,
  viewer,
} from './support.js';

const redisUrl = testRedisUrl();
const kinds: Array<[string, Record<string, string>]> = [['in-process', {}]];
if (redisUrl) kinds.push(['redis', { REDIS_URL: redisUrl }]);

describe.each(kinds)('limits per source (sqlite, %s)', (_name, backendEnv) => {
  const c = clock(new Date().toISOString());
  let t: TestApp;
  let key: string;
  const open: ViewerClient[] = [];
  beforeAll(async () => {
    t = await startBroadcastApp('sqlite', c, {
      PARLEY_TRUST_PROXY: '1',
      PARLEY_BROADCAST_CHANNEL_RATE_SOURCES: '3',
      PARLEY_BROADCAST_WRONG_PASSWORDS_PER_CHANNEL: '150',
      ...backendEnv,
    });
    key = (await realKey(t)).key;
  });
  afterAll(async () => {
    for (const v of open) v.close();
    await t?.close();
  });

  const view = (token: string, ip: string) => viewer(t, 'GET', `/api/v1/viewer/broadcasts/${token}`, { ip });
  const verify = (token: string, password: string, ip: string) =>
    viewer(t, 'POST', `/api/v1/viewer/broadcasts/${token}/verify`, { ip, body: { password } });
  const watch = async (token: string, ip: string, query = '') => {
    const v = await openViewer(t, token, query, { 'x-forwarded-for': ip });
    open.push(v);
    return v;
  };
  const counts = async (id: string) => {
    const d = (await api(t.url, 'GET', `/api/v1/broadcasts/${id}`, { key })).body.data;
    return { viewers: d.viewer_count as number, queued: d.queue_count as number };
  };

  it('one address holds at most its share of seats and queue places (10% of max_viewers, at least 5); another address still gets a seat', async () => {
    const b = await newBroadcast(t, key, { max_viewers: 20 });
    await onAir(t, b.id);
    const greedy = randomIp();
    const streams = await Promise.all(Array.from({ length: 30 }, () => watch(b.token, greedy)));
    const held = streams.filter((v) => v.status === 200);
    expect(held).toHaveLength(5);
    for (const v of streams.filter((s) => s.status !== 200)) {
      expectError(v, 503, 'broadcast_capacity_exceeded');
      expect(v.body.data.details).toMatchObject({ reason: 'source_share', per_source: 5, max_viewers: 20 });
    }
    expect(await counts(b.id)).toEqual({ viewers: 5, queued: 0 });
    // Another address is seated at once (no waiting line).
    const other = await watch(b.token, randomIp());
    expect(other.status).toBe(200);
    await other.next((e) => e.event === 'connected');
    expect(await counts(b.id)).toEqual({ viewers: 6, queued: 0 });
    expect(other.events.some((e) => e.event === 'queued')).toBe(false);
    // A stream that closes gives its place back to its source.
    held[0]!.close();
    await expect.poll(() => counts(b.id).then((n) => n.viewers), { timeout: 10_000 }).toBe(5);
    expect((await watch(b.token, greedy)).status).toBe(200);
    expectError(await watch(b.token, greedy), 503, 'broadcast_capacity_exceeded');
  }, 60_000);

  it('the share counts queue places too: an address cannot fill the waiting line of a full broadcast', async () => {
    const b = await newBroadcast(t, key, { max_viewers: 2 });
    await onAir(t, b.id);
    for (const ip of [randomIp(), randomIp()]) expect((await watch(b.token, ip)).status).toBe(200);
    const greedy = randomIp();
    const streams = await Promise.all(Array.from({ length: 20 }, () => watch(b.token, greedy)));
    expect(streams.filter((v) => v.status === 200)).toHaveLength(5);
    expect(await counts(b.id)).toEqual({ viewers: 2, queued: 5 });
    const late = await watch(b.token, randomIp());
    expect((await late.next((e) => e.event === 'queued')).data.position).toBe(6);
  }, 60_000);

  it('one viewer_access_token holds at most the same share, from however many addresses', async () => {
    const b = await newBroadcast(t, key, { max_viewers: 20, access_type: 'password', pass_code: 'share-1' });
    await onAir(t, b.id);
    const token = (await verify(b.token, 'share-1', randomIp())).body.data.viewer_access_token as string;
    const q = `?viewer_access_token=${encodeURIComponent(token)}`;
    const streams = await Promise.all(Array.from({ length: 8 }, () => watch(b.token, randomIp(), q)));
    expect(streams.filter((v) => v.status === 200)).toHaveLength(5);
    const refused = streams.find((v) => v.status !== 200)!;
    expectError(refused, 503, 'broadcast_capacity_exceeded');
    // A viewer with its own token gets in.
    const own = (await verify(b.token, 'share-1', randomIp())).body.data.viewer_access_token as string;
    expect((await watch(b.token, randomIp(), `?viewer_access_token=${encodeURIComponent(own)}`)).status).toBe(200);
  }, 60_000);

  it("one address's page lookups are limited to the channel rate for it alone: other addresses still see the channel", async () => {
    const b = await newBroadcast(t, key, { max_viewers: 1 });
    const noisy = randomIp();
    const rs = await many(230, 10, () => view(b.token, noisy));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(200);
    expect429(rs[229]!, 'source_channel_rate');
    expect429(await verify(b.token, 'x', noisy), 'source_channel_rate');
    expect((await view(b.token, randomIp())).status).toBe(200);
    expect((await verify(b.token, 'x', randomIp())).status).toBe(200);
  }, 60_000);

  it("many addresses together still meet the channel's ceiling (here 3 sources' worth), and only on that channel", async () => {
    const b = await newBroadcast(t, key, { max_viewers: 1 });
    const sources = [randomIp(), randomIp(), randomIp()];
    const rs = await many(600, 10, (i) => view(b.token, sources[i % 3]!));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(600);
    expect429(await view(b.token, randomIp()), 'channel_rate');
    expect((await view((await newBroadcast(t, key)).token, randomIp())).status).toBe(200);
  }, 120_000);

  it('wrong passwords from four addresses (each to its own lock) do not lock the verify of a fifth', async () => {
    const b = await newBroadcast(t, key, { access_type: 'password', pass_code: 'four-4' });
    const guessers = [randomIp(), randomIp(), randomIp(), randomIp()];
    // 40 tries each, one at a time per address: 30 wrong, then locked; the locked tries count nowhere.
    const rs = await many(160, 4, (i) => verify(b.token, `guess${i}`, guessers[i % 4]!));
    expect(rs.filter((r) => r.status === 401)).toHaveLength(120);
    for (const ip of guessers) expect429(await verify(b.token, 'four-4', ip), 'wrong_passwords_source');
    expect((await verify(b.token, 'four-4', randomIp())).status).toBe(200);
  }, 120_000);

  it('guessing from many addresses still locks the channel at its ceiling (150 here), for every source', async () => {
    const b = await newBroadcast(t, key, { access_type: 'password', pass_code: 'many-5' });
    const guessers = Array.from({ length: 5 }, randomIp);
    const rs = await many(150, 5, (i) => verify(b.token, `guess${i}`, guessers[i % 5]!));
    expect(rs.filter((r) => r.status === 401)).toHaveLength(150);
    expect429(await verify(b.token, 'many-5', randomIp()), 'wrong_passwords_channel');
    expect((await view(b.token, randomIp())).status).toBe(200);
  }, 120_000);
});
