/**
 * Credit running out in the middle of a broadcast, end to end (a minute is three seconds here):
 * the host's recording stops with stt_quota_exceeded (fatal), every viewer's stream gets
 * `ended` and closes, the broadcast is ended (new viewers 410), and the usage row is of type
 * broadcast with the minutes that were covered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, jfkPcm, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { expectError, newBroadcast, openViewer, realKey } from './support.js';

describe('broadcast credit runs out mid-broadcast (sqlite, real host and viewers)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp('sqlite', { env: { PARLEY_REALTIME_BILLING_MINUTE_MS: '3000' } });
  });
  afterAll(() => t?.close());

  it('stt_quota_exceeded to the host, ended to viewers; the broadcast is over', async () => {
    const k = await realKey(t);
    const minute = t.app.deps.billing.prices.broadcastMinute({ translationLanguages: 1 });
    // Two and a half minutes: minutes 0 and 1 are covered, minute 2 is not.
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: minute * 2.5, pool: 'account' });
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });

    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    const host = await connect(t, [`ticket.${r.body.data.ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
    expect(started.data).toMatchObject({ action: 'session_started', phase: 'live' });
    // On air: a viewer joins (before the host's start the stream is 404 not_started).
    const v = await openViewer(t, b.token, '?lang=es');
    expect((await v.next((e) => e.event === 'connected')).data.phase).toBe('live');
    // Real-time audio: the third billing minute (3 s here) cannot be paid.
    void streamPcm(host, jfkPcm().subarray(0, 32_000 * 10), 1).catch(() => {});
    const quota = await host.next((m) => m.type === 'error' && m.data.error_code === 'stt_quota_exceeded', 30_000);
    expect(quota.data).toMatchObject({ severity: 'fatal', details: { minute: 2 } });
    expect((await v.next((e) => e.event === 'ended', 30_000)).data).toEqual({ message: expect.any(String) });
    await v.ended;
    await host.next((m) => m.data?.action === 'task_complete', 60_000);

    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data).toMatchObject({
      status: 'ended',
      is_live: false,
    });
    expectError(await openViewer(t, b.token), 410, 'broadcast_session_ended');
    const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key })).body.data.find(
      (u: { task_id: string }) => u.task_id === started.data.task_id,
    );
    expect(usage).toMatchObject({ type: 'broadcast', in_progress: false });
    expect(Number(usage.points)).toBeCloseTo(minute * 2, 5);
    host.ws.close();
  }, 120_000);
});
