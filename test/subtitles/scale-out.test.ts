/**
 * The audience limit across realtime processes: two app instances sharing only PostgreSQL
 * and Redis (seats leased in Redis, `viewers` over the Redis bus). A viewer on A takes the
 * only seat, so a viewer on B is refused 429; the owner's stream on B hears every change of
 * the audience on A; once A's viewer leaves, B admits one. The public exchange's 30 per
 * minute is counted across both instances.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgSchema, dropPgSchema, startTestApp, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { enableShare, exchange, openSubtitles, ownerToken, publishedLiveRecording } from './support.js';

const redisUrl = testRedisUrl();

describe.skipIf(!redisUrl || !process.env.DATABASE_URL)('floating subtitle limits across two app instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('one seat in all: a viewer on B is refused while A holds it; viewers events cross instances; the exchange limit is shared', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-a-')), mkdtempSync(join(tmpdir(), 'parley-b-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const open = (dir: string): Promise<TestApp> =>
      startTestApp({
        backend: 'postgres',
        env: { PARLEY_ROLES: 'api,realtime', REDIS_URL: redisUrl!, PARLEY_SUBTITLE_MAX_VIEWERS: '1' },
        reuse: { dataDir: dir, pgSchema },
      });
    const a = await open(dirs[0]!);
    cleanup.push(() => a.close());
    const b = await open(dirs[1]!);
    cleanup.push(() => b.close());

    const k = await a.app.deps.keys.createKey({});
    // The session runs on A.
    const { taskId: id, publisher: pub } = await publishedLiveRecording(a, { accountId: k.account_id, keyId: k.key_id }, { settleMs: 100 });

    const ownerOnB = await openSubtitles(b.url, id, (await ownerToken(b.url, k.api_key, id)).body.data.token);
    expect((await ownerOnB.next((e) => e.event === 'viewers')).data).toEqual({ count: 0, max: 1 });
    const secret = (await enableShare(a.url, k.api_key, id)).body.data.share_secret as string;
    const token = async (base: string) => (await exchange(base, id, { share_secret: secret })).body.data.token as string;

    const onA = await openSubtitles(a.url, id, await token(a.url));
    expect(onA.status).toBe(200);
    expect((await ownerOnB.next((e) => e.event === 'viewers')).data).toEqual({ count: 1, max: 1 });
    const refused = await openSubtitles(b.url, id, await token(b.url));
    expect([refused.status, refused.body]).toEqual([429, { error: 'subtitle_audience_full' }]);

    onA.close();
    expect((await ownerOnB.next((e) => e.event === 'viewers')).data).toEqual({ count: 0, max: 1 });
    const onB = await openSubtitles(b.url, id, await token(b.url));
    expect(onB.status).toBe(200);

    // A final published on A reaches the audience on B.
    pub.publish({
      event: 'result',
      data: {
        origin: {
          sid: 0,
          language: 'en',
          text: 'hello',
          is_final: true,
          speaker_id: null,
          detected_language: null,
          start_time: '00:00',
          end_ms: 900,
        },
      },
    });
    expect((await onB.next((e) => e.event === 'origin')).data).toMatchObject({ sid: 0, text: 'hello', is_final: true });
    pub.end();
    await onB.ended;
    await ownerOnB.ended;

    // 30 exchanges per minute for the recording, whichever instance answers: 3 were used above.
    const codes: number[] = [];
    for (let i = 0; i < 28; i++) codes.push((await exchange(i % 2 ? a.url : b.url, id, { share_secret: 'x'.repeat(48) })).status);
    expect(codes.slice(0, 27).every((c) => c === 403)).toBe(true);
    expect(codes[27]).toBe(429);
  }, 60_000);
});
