/**
 * A host whose process dies without a word, with real WebSocket hosts and SSE viewers. A dead
 * process is simulated by a host claim whose lease nobody renews (what is left in the
 * database when the process holding the host's connection is gone). While the lease holds,
 * a new start is refused (broadcast_already_hosted); once it lapses, viewers get
 * host_disconnected (any process's sweep) and a new start takes the broadcast over (viewers:
 * host_reconnected, recording_started); with no new start the broadcast ends after the host
 * wait. A host session whose lease was taken from it is told and stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { connect, errorWith, type Msg, startLiveApp, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { newBroadcast, openViewer, realKey } from './support.js';

const LEASE_MS = 2000;

describe('broadcast host lease: a dead host process does not hold the broadcast (sqlite, real host and viewers)', () => {
  let t: TestApp;
  let key: string;
  let keyId: string;
  let store: BroadcastStore;
  beforeAll(async () => {
    t = await startLiveApp('sqlite', { env: { PARLEY_BROADCAST_HOST_LEASE_SECONDS: '2', PARLEY_BROADCAST_HOST_WAIT_SECONDS: '3' } });
    const k = await realKey(t);
    key = k.key;
    keyId = k.keyId;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 100, pool: 'account' });
    store = new BroadcastStore(t.app.deps.database);
  });
  afterAll(() => t?.close());

  async function hostSocket() {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    return connect(t, [`ticket.${r.body.data.ticket}`]);
  }
  const answer = (m: Msg) => m.data?.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning');
  /** What a process that died mid-broadcast leaves: an active, live broadcast whose lease nobody renews. */
  async function deadHost(broadcastId: string) {
    const now = new Date();
    const claimed = await store.beginHost(broadcastId, {
      hostKeyId: keyId,
      phase: 'live',
      now,
      session: 'dead-process',
      leaseUntil: new Date(now.getTime() + LEASE_MS),
    });
    expect(claimed).toBe('started');
  }

  it('refused while the lease holds; after it lapses viewers get host_disconnected and a new start takes over (host_reconnected)', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    await deadHost(b.id);
    const v = await openViewer(t, b.token);
    expect((await v.next((e) => e.event === 'connected')).data.phase).toBe('live');

    const early = await hostSocket();
    early.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await early.next(answer, 20_000)).data).toMatchObject({ error_code: 'broadcast_already_hosted' });

    await v.next((e) => e.event === 'host_disconnected', 10_000);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data).toMatchObject({ status: 'active' });

    const back = await hostSocket();
    back.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm', broadcast_phase: 'standby' }));
    const started = await back.next(answer, 20_000);
    expect(started.data).toMatchObject({ action: 'session_started', phase: 'live', recording_type: 'broadcast' });
    expect((await v.next((e) => e.event === 'host_reconnected')).data).toMatchObject({ resumed: true, phase: 'live' });
    await v.next((e) => e.event === 'recording_started');
    // The new host renews its lease: well past the lease length the broadcast is still its own.
    await new Promise((r) => setTimeout(r, LEASE_MS * 2));
    expect(v.events.filter((e) => e.event === 'host_disconnected')).toHaveLength(1);
    back.send(vt('stop'));
    await v.next((e) => e.event === 'ended', 30_000);
    await back.next((m) => m.data?.action === 'task_complete', 60_000);
    for (const c of [early, back]) c.ws.close();
    v.close();
  }, 120_000);

  it('no host returns: the broadcast ends after the host wait (viewers get ended, new viewers 410)', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'] });
    await deadHost(b.id);
    const v = await openViewer(t, b.token);
    await v.next((e) => e.event === 'connected');
    await v.next((e) => e.event === 'host_disconnected', 10_000);
    await v.next((e) => e.event === 'ended', 15_000);
    await v.ended;
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data.status).toBe('ended');
    const after = await openViewer(t, b.token);
    expect(after.status).toBe(410);
    expect(after.body.data.error_code).toBe('broadcast_session_ended');
  }, 60_000);

  it('a host whose lease was taken (its process had stalled past the lease) is told broadcast_already_hosted and stops', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'] });
    const host = await hostSocket();
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await host.next(answer, 20_000)).data.action).toBe('session_started');
    // Another process's host took it over after a lapse: the lease now names that session.
    await t.app.deps.database.db
      .updateTable('broadcasts')
      .set({ host_session: 'another-process', host_lease_until: new Date(Date.now() + 60_000).toISOString() })
      .where('id', '=', b.id)
      .execute();
    await errorWith(host, 'broadcast_already_hosted', 10_000);
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    // Its end did not end the broadcast the other host now runs.
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data.status).toBe('active');
    host.ws.close();
  }, 90_000);
});
