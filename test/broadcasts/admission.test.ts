/**
 * Viewers joining a broadcast share their process's reads of it (its room reads the row once
 * for all joiners, fanout/room.ts), yet every change the host makes applies to the very next
 * viewer: a smaller max_viewers queues it, a password refuses it, the end answers 410. Each
 * step comes within the second a shared read may be kept, so a stale row would admit them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { viewerTopic } from '../../src/broadcasts/viewer-events.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { expectError, newBroadcast, onAir, openViewer } from './support.js';

describe('viewer admission follows the host at once (sqlite)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({
      backend: 'sqlite',
      env: { PARLEY_BROADCAST_VIEWER_LIMIT: '50', PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100' },
    });
    key = (await t.app.deps.keys.createKey({ name: 'admission' })).api_key;
  }, 60_000);
  afterAll(() => t?.close());

  /** viewer_count/queue_count as the owner sees them. */
  const seats = async (id: string) => {
    const d = (await api(t.url, 'GET', `/api/v1/broadcasts/${id}`, { key })).body.data;
    return `${d.viewer_count}/${d.queue_count}`;
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const r = await api(t.url, 'PATCH', `/api/v1/broadcasts/${id}`, { key, body });
    expect(r.status).toBe(200);
  };

  it('max_viewers, the access and the end apply to the next viewer while others watch', async () => {
    const b = await newBroadcast(t, key);
    await onAir(t, b.id, 'live');
    const first = await openViewer(t, b.token);
    await first.next((e) => e.event === 'connected');
    // Many viewers together: one room, all admitted.
    const crowd = await Promise.all(Array.from({ length: 5 }, () => openViewer(t, b.token)));
    for (const v of crowd) await v.next((e) => e.event === 'connected');
    expect(crowd.every((v) => !v.events.some((e) => e.event === 'queued'))).toBe(true);
    for (const v of crowd) v.close();

    // A smaller max_viewers: the next viewer waits (the first one holds the only seat).
    await patch(b.id, { max_viewers: 1 });
    const waiting = await openViewer(t, b.token);
    expect((await waiting.next((e) => e.event === 'queued')).data.position).toBe(1);
    waiting.close();

    // A password: the watching viewer (no token) is kicked, the next one refused.
    await patch(b.id, { access_type: 'password', pass_code: 'open-sesame' });
    await first.next((e) => e.event === 'kicked');
    expectError(await openViewer(t, b.token), 401, 'broadcast_password_incorrect');

    // Public again: admitted once the seat the kicked viewer held is free.
    await patch(b.id, { access_type: 'public' });
    for (let i = 0; i < 100 && (await seats(b.id)) !== '0/0'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await seats(b.id)).toBe('0/0');
    const back = await openViewer(t, b.token);
    const connected = await back.next((e) => e.event === 'connected');
    expect(connected.data.phase).toBe('live');
    expect(back.events.some((e) => e.event === 'queued')).toBe(false);

    // The end (written, then announced, as the host's node does): the watcher gets ended, the next viewer 410.
    await new BroadcastStore(t.app.deps.database).end(b.id, new Date());
    await t.app.deps.bus.publish(viewerTopic(b.id), { event: 'ended', data: {} });
    await back.next((e) => e.event === 'ended');
    expectError(await openViewer(t, b.token), 410, 'broadcast_session_ended');
  });
});
