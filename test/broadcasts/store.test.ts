/**
 * The host lifecycle in the store: pending -> active (one host at a time), frozen on a drop
 * and taken again by a returning host in its phase, ended (token released), and the viewer
 * counters (total, peak).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepHosts } from '../../src/broadcasts/host-lease.js';
import { broadcastTaskRouting } from '../../src/broadcasts/routing.js';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { GATHER_MS, ViewerCounter } from '../../src/broadcasts/viewer-counter.js';
import { createLogger } from '../../src/platform/logging.js';
import { backends, type TestApp } from '../support/app.js';
import { clock, newBroadcast, realKey, startBroadcastApp } from './support.js';

describe.each(backends())('broadcast host lifecycle in the store (%s)', (backend) => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  let keyId: string;
  let store: BroadcastStore;
  beforeAll(async () => {
    // A long lease: the app's own sweep (every third of it) stays out of the way of the sweeps run here.
    t = await startBroadcastApp(backend, c, { PARLEY_BROADCAST_HOST_LEASE_SECONDS: '600' });
    const k = await realKey(t);
    key = k.key;
    keyId = k.keyId;
    store = new BroadcastStore(t.app.deps.database);
  });
  afterAll(() => t?.close());
  /** A host session's claim with a 30 s lease (session s1 unless named). */
  const host = (phase: 'standby' | 'live', session = 's1') => ({
    hostKeyId: keyId,
    phase,
    now: c.now(),
    session,
    leaseUntil: new Date(c.now().getTime() + 30_000),
  });

  it('one host at a time; a drop freezes it; a returning host resumes in the phase it had; the end releases the token', async () => {
    const b = await newBroadcast(t, key);
    const task1 = '11111111-1111-4111-8111-111111111111';
    expect(await store.beginHost(b.id, host('standby'))).toBe('started');
    await store.setTask(b.id, task1);
    expect(await store.beginHost(b.id, host('live'))).toBeNull();
    await store.setPhase(b.id, 'live', c.now());
    const wentLive = c.now().toISOString();
    c.advance(1000);
    await store.setPhase(b.id, 'live', c.now());
    expect((await store.get(b.id))?.liveSince).toBe(wentLive);
    expect(await store.freeze(b.id, 'another-session', c.now())).toBe(false);
    expect(await store.freeze(b.id, 's1', c.now())).toBe(true);
    expect(await store.frozenSince(new Date(c.now().getTime() - 1))).toEqual([]);
    expect((await store.frozenSince(c.now())).map((x) => x.id)).toEqual([b.id]);
    const task2 = '22222222-2222-4222-8222-222222222222';
    expect(await store.beginHost(b.id, host('standby'))).toBe('resumed');
    await store.setTask(b.id, task2);
    expect(await store.get(b.id)).toMatchObject({ status: 'active', phase: 'live', taskId: task2, frozenAt: null, hostKeyId: keyId });
    expect(await store.end(b.id, c.now())).toBe(true);
    expect(await store.end(b.id, c.now())).toBe(false);
    expect(await store.get(b.id)).toMatchObject({ status: 'ended', phase: null, endedAt: c.now().toISOString() });
    expect(await store.beginHost(b.id, host('live'))).toBeNull();
    const claim = await t.app.deps.database.db
      .selectFrom('broadcasts')
      .select('token_claim')
      .where('id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(claim.token_claim).toBeNull();
  });

  it('a lapsed host lease (the hosting process died): a new host takes over, the old session cannot renew; the sweep freezes, then ends', async () => {
    const b = await newBroadcast(t, key);
    expect(await store.beginHost(b.id, host('live', 'dead'))).toBe('started');
    expect(await store.renewLease(b.id, 'dead', new Date(c.now().getTime() + 30_000))).toBe(true);
    // Held: no takeover, nothing lapsed.
    expect(await store.beginHost(b.id, host('live', 'new'))).toBeNull();
    expect(await store.lapsedHosts(c.now())).not.toContain(b.id);
    c.advance(30_001);
    expect(await store.lapsedHosts(c.now())).toContain(b.id);
    expect(await store.beginHost(b.id, host('standby', 'new'))).toBe('resumed');
    expect(await store.get(b.id)).toMatchObject({ status: 'active', phase: 'live', frozenAt: null });
    expect(await store.renewLease(b.id, 'dead', new Date(c.now().getTime() + 30_000))).toBe(false);
    expect(await store.renewLease(b.id, 'new', new Date(c.now().getTime() + 30_000))).toBe(true);
    expect(await store.freeze(b.id, 'dead', c.now())).toBe(false);

    // The new host's process dies too: the sweep freezes from the lapse (once), then ends after the host wait.
    const published: Array<[string, string]> = [];
    const sweep = {
      store,
      publish: async (id: string, e: { event: string }) => {
        if (id === b.id) published.push([id, e.event]);
      },
      leaseMs: 30_000,
      hostWaitMs: 60_000,
      now: c.now,
      logger: createLogger('silent'),
    };
    const lapsedAt = new Date(c.now().getTime() + 30_000).toISOString();
    c.advance(30_001);
    await sweepHosts(sweep);
    await sweepHosts(sweep);
    expect(published).toEqual([[b.id, 'host_disconnected']]);
    expect((await store.get(b.id))?.frozenAt).toBe(lapsedAt);
    c.advance(60_000);
    await sweepHosts(sweep);
    expect(published).toEqual([
      [b.id, 'host_disconnected'],
      [b.id, 'ended'],
    ]);
    expect((await store.get(b.id))?.status).toBe('ended');
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

  it('a crowd of admissions is counted exactly, in a few writes; each admission resolves once written', async () => {
    const b = await newBroadcast(t, key);
    let writes = 0;
    const counter = new ViewerCounter({
      countViewer: (id, current, added) => {
        writes++;
        return store.countViewer(id, current, added);
      },
    });
    // 500 admissions one event-loop turn apart, as a crowd's requests come (one per I/O callback).
    const admitted: Promise<void>[] = [];
    const began = Date.now();
    for (let i = 1; i <= 500; i++) {
      admitted.push(counter.count(b.id, i));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(admitted);
    expect(await store.get(b.id)).toMatchObject({ totalViewers: 500, peakViewers: 500 });
    // One write per GATHER_MS at most while they arrive (each write answered everyone waiting), never one each.
    expect(writes).toBeLessThanOrEqual(Math.ceil((Date.now() - began) / GATHER_MS) + 2);
    expect(writes).toBeLessThan(250);
    // After a quiet spell an admission is written at once, alone.
    await new Promise((r) => setTimeout(r, 100));
    const before = writes;
    await counter.count(b.id, 3);
    expect(writes).toBe(before + 1);
    expect(await store.get(b.id)).toMatchObject({ totalViewers: 501, peakViewers: 500 });
  });
});
