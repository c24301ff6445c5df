/**
 * The host lifecycle in the store: pending -> active (one host at a time), frozen on a drop
 * and taken again by a returning host in its phase, ended (token released), and the viewer
 * counters (total, peak).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { backends, type TestApp } from '../support/app.js';
import { clock, newBroadcast, realKey, startBroadcastApp } from './support.js';

describe.each(backends())('broadcast host lifecycle in the store (%s)', (backend) => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  let keyId: string;
  let store: BroadcastStore;
  beforeAll(async () => {
    t = await startBroadcastApp(backend, c);
    const k = await realKey(t);
    key = k.key;
    keyId = k.keyId;
    store = new BroadcastStore(t.app.deps.database);
  });
  afterAll(() => t?.close());

  it('one host at a time; a drop freezes it; a returning host resumes in the phase it had; the end releases the token', async () => {
    const b = await newBroadcast(t, key);
    const task1 = '11111111-1111-4111-8111-111111111111';
    expect(await store.beginHost(b.id, { hostKeyId: keyId, phase: 'standby', now: c.now() })).toBe('started');
    await store.setTask(b.id, task1);
    expect(await store.beginHost(b.id, { hostKeyId: keyId, phase: 'live', now: c.now() })).toBeNull();
    await store.setPhase(b.id, 'live', c.now());
    const wentLive = c.now().toISOString();
    c.advance(1000);
    await store.setPhase(b.id, 'live', c.now());
    expect((await store.get(b.id))?.liveSince).toBe(wentLive);
    await store.freeze(b.id, c.now());
    expect(await store.frozenSince(new Date(c.now().getTime() - 1))).toEqual([]);
    expect((await store.frozenSince(c.now())).map((x) => x.id)).toEqual([b.id]);
    const task2 = '22222222-2222-4222-8222-222222222222';
    expect(await store.beginHost(b.id, { hostKeyId: keyId, phase: 'standby', now: c.now() })).toBe('resumed');
    await store.setTask(b.id, task2);
    expect(await store.get(b.id)).toMatchObject({ status: 'active', phase: 'live', taskId: task2, frozenAt: null, hostKeyId: keyId });
    expect(await store.end(b.id, c.now())).toBe(true);
    expect(await store.end(b.id, c.now())).toBe(false);
    expect(await store.get(b.id)).toMatchObject({ status: 'ended', phase: null, endedAt: c.now().toISOString() });
    expect(await store.beginHost(b.id, { hostKeyId: keyId, phase: 'live', now: c.now() })).toBeNull();
    const claim = await t.app.deps.database.db
      .selectFrom('broadcasts')
      .select('token_claim')
      .where('id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(claim.token_claim).toBeNull();
  });

  it('counts admitted viewers: total grows by one each, the peak keeps the highest count', async () => {
    const b = await newBroadcast(t, key);
    for (const current of [1, 2, 3, 2, 1, 2]) await store.countViewer(b.id, current);
    expect(await store.get(b.id)).toMatchObject({ totalViewers: 6, peakViewers: 3 });
  });
});
