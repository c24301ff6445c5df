/**
 * The host lifecycle in the store: pending -> active (one host at a time), frozen on a drop
 * and taken again by a returning host in its phase, ended (token released), and the viewer
 * counters (total, peak).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastTaskRouting } from '../../src/broadcasts/routing.js';
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

  it("routes a broadcast recording's webhooks to the broadcast's callback_url (every recording of it), else to the key's URL", async () => {
    const withUrl = await newBroadcast(t, key, { callback_url: 'https://hooks.example.org/b?sig=1' });
    const without = await newBroadcast(t, key);
    const [t1, t2, t3] = [
      'a1111111-1111-4111-8111-111111111111',
      'a2222222-2222-4222-8222-222222222222',
      'a3333333-3333-4333-8333-333333333333',
    ];
    await store.setTask(withUrl.id, t1);
    await store.setTask(withUrl.id, t2); // a host's return: a second recording
    await store.setTask(without.id, t3);
    const route = broadcastTaskRouting();
    const db = t.app.deps.database.db;
    expect(await route(t1, db)).toEqual({ callbackUrl: 'https://hooks.example.org/b?sig=1' });
    expect(await route(t2, db)).toEqual({ callbackUrl: 'https://hooks.example.org/b?sig=1' });
    expect(await route(t3, db)).toBeNull();
    expect(await route('a4444444-4444-4444-8444-444444444444', db)).toBeNull();
  });

  it('counts admitted viewers: total grows by one each, the peak keeps the highest count', async () => {
    const b = await newBroadcast(t, key);
    for (const current of [1, 2, 3, 2, 1, 2]) await store.countViewer(b.id, current);
    expect(await store.get(b.id)).toMatchObject({ totalViewers: 6, peakViewers: 3 });
  });
});
