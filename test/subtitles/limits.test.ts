/**
 * Floating-subtitle limits over real HTTP/SSE: the audience limit per recording (setting,
 * owner not counted, 429) with the `viewers` events as the audience changes, and the public
 * exchange's 30 requests per minute per source and recording (invalid ones included), answered
 * 429 `too_many_requests` in the standard error shape with Retry-After, under a per-recording
 * ceiling (lowered to 60 here) that one source cannot reach. Sources differ by X-Forwarded-For
 * (PARLEY_TRUST_PROXY=1). On PostgreSQL with REDIS_URL the rate limit and the audience are
 * counted in Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskStore } from '../../src/tasks/store.js';
import { clock, realKey } from '../billing/support.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { enableShare, exchange, liveRecording as liveRecordingOf, openSubtitles, ownerToken, type SubtitleClient } from './support.js';

describe.each(backends())('floating subtitle limits (%s)', (backend) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof realKey>>;
  const c = clock(new Date().toISOString());

  beforeAll(async () => {
    const redis: Record<string, string> = backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
    t = await startTestApp({
      backend,
      now: c.now,
      env: {
        PARLEY_SUBTITLE_MAX_VIEWERS: '2',
        PARLEY_SUBTITLE_RECHECK_SECONDS: '1',
        PARLEY_TRUST_PROXY: '1',
        PARLEY_SUBTITLE_EXCHANGES_PER_RECORDING: '60',
        ...redis,
      },
    });
    owner = await realKey(t);
  });
  afterAll(() => t?.close());

  const liveRecording = () => liveRecordingOf(t, owner);

  it('audience limit: the third viewer gets 429, the owner is not counted; viewers events follow the audience', async () => {
    const id = await liveRecording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    const audienceToken = async () => (await exchange(t.url, id, { share_secret: secret })).body.data.token as string;

    const ownerSub = await openSubtitles(t.url, id, (await ownerToken(t.url, owner.key, id)).body.data.token);
    expect((await ownerSub.next((e) => e.event === 'viewers')).data).toEqual({ count: 0, max: 2 });

    const a = await openSubtitles(t.url, id, await audienceToken());
    expect(a.status).toBe(200);
    expect((await a.next((e) => e.event === 'viewers')).data).toEqual({ count: 1, max: 2 });
    expect((await ownerSub.next((e) => e.event === 'viewers')).data).toEqual({ count: 1, max: 2 });

    const b = await openSubtitles(t.url, id, await audienceToken());
    expect((await b.next((e) => e.event === 'viewers')).data).toEqual({ count: 2, max: 2 });
    expect((await a.next((e) => e.event === 'viewers')).data).toEqual({ count: 2, max: 2 });
    expect((await ownerSub.next((e) => e.event === 'viewers')).data).toEqual({ count: 2, max: 2 });

    const refused = await openSubtitles(t.url, id, await audienceToken());
    expect([refused.status, refused.body]).toEqual([429, { error: 'subtitle_audience_full' }]);
    // The owner is not counted: a second owner stream still opens.
    const ownerTwo = await openSubtitles(t.url, id, (await ownerToken(t.url, owner.key, id)).body.data.token);
    expect(ownerTwo.status).toBe(200);

    // One leaves: everyone hears it, and the seat is free again.
    b.close();
    expect((await a.next((e) => e.event === 'viewers')).data).toEqual({ count: 1, max: 2 });
    expect((await ownerSub.next((e) => e.event === 'viewers')).data).toEqual({ count: 1, max: 2 });
    const c = await openSubtitles(t.url, id, await audienceToken());
    expect(c.status).toBe(200);
    for (const s of [a, c, ownerSub, ownerTwo] as SubtitleClient[]) s.close();
  });

  it('the limit is per recording', async () => {
    const one = await liveRecording();
    const two = await liveRecording();
    const open = async (id: string) => {
      const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
      const tokens = await Promise.all(
        [0, 1].map(async () => (await exchange(t.url, id, { share_secret: secret })).body.data.token as string),
      );
      return Promise.all(tokens.map((tk) => openSubtitles(t.url, id, tk)));
    };
    const subs = [...(await open(one)), ...(await open(two))];
    expect(subs.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    for (const s of subs) s.close();
  });

  it('public exchange: 30 per minute per source and recording, invalid attempts included, then 429 too_many_requests with Retry-After', async () => {
    const id = await liveRecording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    for (let i = 0; i < 29; i++) {
      const r = await exchange(t.url, id, { share_secret: 'w'.repeat(48) });
      expect(r.status).toBe(403);
    }
    expect((await exchange(t.url, id, { share_secret: secret })).status).toBe(200); // the 30th
    const limited = await exchange(t.url, id, { share_secret: secret });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.body.data).toMatchObject({ error_code: 'too_many_requests', severity: 'error' });
    expect(typeof limited.body.data.message).toBe('string');
    // Malformed bodies count and are refused too; another recording has its own budget.
    expect((await exchange(t.url, id, '{oops')).status).toBe(429);
    const other = await liveRecording();
    const otherSecret = (await enableShare(t.url, owner.key, other)).body.data.share_secret as string;
    expect((await exchange(t.url, other, { share_secret: otherSecret })).status).toBe(200);
  });

  const exchangeFrom = (ip: string, id: string, secret: string) =>
    api(t.url, 'POST', `/api/v1/public/tasks/${id}/subtitle-feed-token`, {
      body: { share_secret: secret },
      headers: { 'x-forwarded-for': ip },
    });

  it('one address flooding bogus share secrets locks only itself: another address still exchanges the real one', async () => {
    const id = await liveRecording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    for (let i = 0; i < 40; i++) expect((await exchangeFrom('10.26.0.1', id, 'b'.repeat(48))).status).toBe(i < 30 ? 403 : 429);
    expect((await exchangeFrom('10.26.0.1', id, secret)).status).toBe(429);
    const audience = await exchangeFrom('10.26.0.2', id, secret);
    expect(audience.status).toBe(200);
    expect(typeof audience.body.data.token).toBe('string');
  });

  it('many addresses together still meet the per-recording ceiling (60 per minute here)', async () => {
    const id = await liveRecording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    for (let i = 0; i < 60; i++) expect((await exchangeFrom(`10.27.0.${1 + (i % 2)}`, id, 'b'.repeat(48))).status).toBe(403);
    const refused = await exchangeFrom('10.27.0.3', id, secret);
    expect(refused.status).toBe(429);
    expect(refused.body.data).toMatchObject({ error_code: 'too_many_requests' });
  });

  it('an open stream keeps its token alive (sliding); a revoked share ends audience streams; a recording that ended without its stream ends them too', async () => {
    const id = await liveRecording();
    const token = (await ownerToken(t.url, owner.key, id)).body.data.token as string;
    const sub = await openSubtitles(t.url, id, token);
    await sub.next((e) => e.event === 'viewers');
    for (let i = 0; i < 2; i++) {
      c.advance(800_000);
      await new Promise((r) => setTimeout(r, 2500)); // at least one recheck uses the token
    }
    sub.close();
    // 1600 s after it was issued: alive only because the open stream kept using it.
    const again = await openSubtitles(t.url, id, token);
    expect(again.status).toBe(200);

    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    const audience = await openSubtitles(t.url, id, (await exchange(t.url, id, { share_secret: secret })).body.data.token);
    await audience.next((e) => e.event === 'viewers');
    expect((await api(t.url, 'DELETE', `/api/v1/auth/tasks/${id}/subtitle-share`, { key: owner.key })).body.data.revoked).toBe(true);
    expect((await audience.next((e) => e.event === 'error', 5000)).data).toMatchObject({ error_code: 'feed_token_invalid' });
    await audience.ended;
    // Everyone still watching hears that the audience shrank.
    expect((await again.next((e) => e.event === 'viewers' && e.data.count === 0, 5000)).data).toEqual({ count: 0, max: 2 });

    // The recording left `recording` without an `ended` on its stream (its process died): the recheck ends the stream.
    await new TaskStore(t.app.deps.database).setStatus(id, 'uploading');
    expect((await again.next((e) => e.event === 'ended', 5000)).data).toMatchObject({ task_id: id });
    await again.ended;
  });
});
