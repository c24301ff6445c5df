/**
 * The host's WebSocket side of a broadcast, with real engines (PocketSphinx, Apertium) and
 * jfk.flac: start with type broadcast and the channel's token, standby -> live -> paused ->
 * live -> ended with the events viewers are published (read here from the broadcast's viewer
 * topic on the bus), the task (type and type_source broadcast), usage type broadcast charged
 * in points, every refusal of a broadcast start, revoke during a broadcast, and a host drop
 * with its return.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViewerEvent } from '../../src/broadcasts/viewer-events.js';
import { viewerTopic } from '../../src/broadcasts/viewer-events.js';
import { connect, errorWith, event, jfkPcm, type Msg, startLiveApp, streamPcm, vt, waitFor } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { newBroadcast, realKey } from './support.js';

const pcm = jfkPcm();

describe('broadcast host over WebSocket (sqlite, real engines)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp('sqlite', { env: { PARLEY_BROADCAST_HOST_WAIT_SECONDS: '2' } });
  });
  afterAll(() => t?.close());

  async function host(points = 50, keyInput: Parameters<typeof realKey>[1] = {}) {
    const k = await realKey(t, keyInput);
    if (points > 0) await t.app.deps.billing.grantCredit({ accountId: k.accountId, points, pool: 'account' });
    return k;
  }
  async function socket(key: string) {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    if (r.status !== 200) throw new Error(`ticket ${r.status} ${JSON.stringify(r.body)}`);
    return connect(t, [`ticket.${r.body.data.ticket}`]);
  }
  /** The events published to the broadcast's viewers, in order. */
  async function viewers(broadcastId: string) {
    const seen: ViewerEvent[] = [];
    const off = await t.app.deps.bus.subscribe(viewerTopic(broadcastId), (m) => seen.push(m));
    return { seen, names: () => seen.map((e) => e.event), off };
  }
  const answer = (m: Msg) => m.data?.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning');
  const startBroadcast = (cl: Awaited<ReturnType<typeof socket>>, data: Record<string, unknown>) => {
    cl.send(vt('start', { type: 'broadcast', audio_format: 'pcm', ...data }));
    return cl.next(answer, 20_000);
  };

  it('standby -> live -> paused -> live -> ended: viewers get only what the phase allows; task and usage are the broadcast kind', async () => {
    const k = await host();
    const b = await newBroadcast(t, k.key, { name: 'JFK live', transcription_languages: ['en'], translation_languages: ['es'] });
    const v = await viewers(b.id);
    const cl = await socket(k.key);
    const started = await startBroadcast(cl, { broadcast_token: b.token, broadcast_phase: 'standby', standby_message: 'Starting soon' });
    expect(started.data).toMatchObject({
      action: 'session_started',
      recording_type: 'broadcast',
      phase: 'standby',
      viewer_count: 0,
      queue_count: 0,
      peak_viewers: 0,
      total_viewers: 0,
      task_id: expect.any(String),
    });
    const taskId = started.data.task_id as string;
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data).toMatchObject({
      status: 'active',
      phase: 'standby',
      task_id: taskId,
    });
    // Standby: the host sees results, viewers only the standby message (with its Spanish translation).
    await streamPcm(cl, pcm.subarray(0, 32_000 * 4), 4);
    await waitFor(cl, (ms) => ms.some((m) => m.data?.action === 'result'), 20_000);
    expect(v.names()).toEqual(['standby']);
    expect(v.seen[0]!.data).toMatchObject({ message: 'Starting soon', translations: { es: expect.any(String) } });

    cl.send(vt('broadcast_go_live'));
    expect((await event(cl, 'phase_changed')).data).toMatchObject({ phase: 'live' });
    cl.send(vt('broadcast_announcement', { message: 'Welcome, everyone' }));
    expect((await event(cl, 'announcement')).data).toMatchObject({
      message: 'Welcome, everyone',
      translations: { es: expect.any(String) },
    });
    await streamPcm(cl, pcm.subarray(32_000 * 4), 4);
    await waitFor(cl, () => v.seen.some((e) => e.event === 'translation' && e.data.is_final), 30_000);
    cl.send(vt('pause'));
    await event(cl, 'status');
    cl.send(vt('resume'));
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete', 60_000);
    await waitFor(cl, () => v.seen.some((e) => e.event === 'ended'), 5000);
    v.off();

    const names = v.names();
    // Nothing before going live but the standby message; captions of an utterance already under
    // way may come before the announcement, so only its presence is checked.
    expect(names.slice(0, 3)).toEqual(['standby', 'phase_changed', 'recording_started']);
    expect(names.filter((n) => n === 'announcement')).toHaveLength(1);
    const caption = names.slice(3, names.indexOf('paused')).filter((n) => n !== 'announcement');
    expect(caption.length).toBeGreaterThan(0);
    expect(new Set(caption)).toEqual(new Set(['origin', 'translation']));
    // After the stop, the sentences the recognizer still had come out before `ended` (the last event).
    const afterPause = names.slice(names.indexOf('paused'));
    expect(afterPause.slice(0, 2)).toEqual(['paused', 'resumed']);
    expect(afterPause.at(-1)).toBe('ended');
    expect(new Set(['origin', 'translation', ...afterPause.slice(2, -1)])).toEqual(new Set(['origin', 'translation']));
    const finals = v.seen.filter((e) => e.event === 'origin' && e.data.is_final);
    expect(finals.length).toBeGreaterThan(0);
    // Each is a final the host saw (same sid and text); nothing of the standby reached viewers (names above).
    const hostFinals = cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    for (const f of finals) expect(hostFinals).toContainEqual(expect.objectContaining({ sid: f.data.sid, text: f.data.text }));
    for (const f of finals) {
      expect(f.data).toEqual({
        sid: expect.any(Number),
        text: expect.any(String),
        speaker_label: null,
        start_time: expect.stringMatching(/^\d\d:\d\d$/),
        is_final: true,
      });
    }
    // Captions count from going live, not from the start of the standby test.
    expect(finals[0]!.data.start_time).toBe('00:00');
    // Interim translations (is_final false) may come first; the final one has the same shape.
    const tr = v.seen.find((e) => e.event === 'translation' && e.data.is_final)!;
    expect(tr.data).toMatchObject({ language: 'es', is_final: true, speaker_id: null, speaker_label: null });

    const detail = (await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data;
    expect(detail).toMatchObject({ status: 'ended', phase: null, is_live: false, ended_at: expect.any(String) });
    const task = await t.app.deps.database.db
      .selectFrom('tasks')
      .select(['type', 'type_source', 'title'])
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    expect(task).toEqual({ type: 'broadcast', type_source: 'broadcast', title: 'JFK live' });
    const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key })).body.data.find(
      (u: { task_id: string }) => u.task_id === taskId,
    );
    expect(usage).toMatchObject({ type: 'broadcast', in_progress: false, refunded: false });
    expect(usage.points).toBeGreaterThan(0);
    // The ended broadcast cannot start again; its link says so.
    const again = await socket(k.key);
    expect((await startBroadcast(again, { broadcast_token: b.token })).data).toMatchObject({ error_code: 'broadcast_session_ended' });
    again.ws.close();
    cl.ws.close();
  }, 120_000);

  it('refuses broadcast starts: missing or unknown token, another account, plan-bound key, no credit under unlimited, a second host; the connection stays', async () => {
    const k = await host();
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'] });
    const cl = await socket(k.key);
    const refused = async (data: Record<string, unknown>) => (await startBroadcast(cl, data)).data;
    expect(await refused({})).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'broadcast_token' } });
    expect(await refused({ broadcast_token: 'zz99' })).toMatchObject({ error_code: 'broadcast_token_invalid' });
    expect(await refused({ broadcast_token: b.token, audio_format: undefined })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'audio_format' },
    });
    expect(await refused({ broadcast_token: b.token, broadcast_phase: 'LIVE' })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'broadcast_phase' },
    });
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], broadcast_token: b.token }));
    expect((await cl.next(answer)).data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'broadcast_token' } });

    const other = await host();
    const foreign = await socket(other.key);
    expect((await startBroadcast(foreign, { broadcast_token: b.token })).data).toMatchObject({ error_code: 'broadcast_token_invalid' });
    foreign.ws.close();

    const planBound = await host();
    const pb = await newBroadcast(t, planBound.key, { transcription_languages: ['en'] });
    await t.app.deps.plans.setPlan(planBound.accountId, { mode: 'unlimited-plan', planName: 'standard' });
    const pbs = await socket(planBound.key);
    const denied = (await startBroadcast(pbs, { broadcast_token: pb.token })).data;
    expect(denied).toMatchObject({ error_code: 'plan_feature_not_allowed', severity: 'fatal' });
    pbs.ws.close();

    const unlimited = await host(0);
    await t.app.deps.plans.setPlan(unlimited.accountId, { mode: 'unlimited' });
    const ub = await newBroadcast(t, unlimited.key, { transcription_languages: ['en'] });
    const us = await socket(unlimited.key);
    const poor = (await startBroadcast(us, { broadcast_token: ub.token })).data;
    expect(poor).toMatchObject({ error_code: 'auth_quota_exceeded', details: { budget_scope: 'account_credit', remaining_budget: 0 } });
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${ub.id}`, { key: unlimited.key })).body.data.status).toBe('pending');
    us.ws.close();

    // The refusals left the connection open: a valid start works on it; a second host is refused.
    const ok = await startBroadcast(cl, { broadcast_token: b.token });
    expect(ok.data).toMatchObject({ action: 'session_started', phase: 'live' });
    const second = await socket(k.key);
    expect((await startBroadcast(second, { broadcast_token: b.token })).data).toMatchObject({ error_code: 'broadcast_already_hosted' });
    second.ws.close();
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete', 60_000);
    cl.ws.close();
  }, 120_000);

  it('revoking a running broadcast ends it: the host is told broadcast_token_revoked', async () => {
    const k = await host();
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'] });
    const cl = await socket(k.key);
    await startBroadcast(cl, { broadcast_token: b.token });
    await streamPcm(cl, pcm.subarray(0, 32_000), 4);
    expect((await api(t.url, 'POST', `/api/v1/broadcasts/${b.id}/revoke`, { key: k.key })).status).toBe(200);
    await errorWith(cl, 'broadcast_token_revoked', 10_000);
    expect((await cl.next((m) => m.data?.action === 'task_complete', 60_000)).data.task_id).toBeTruthy();
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data.status).toBe('revoked');
    cl.ws.close();
  }, 90_000);

  it('a host drop freezes the broadcast (host_disconnected); the host returns with the same token (host_reconnected, previous phase); without a return it ends', async () => {
    const k = await host();
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'] });
    const v = await viewers(b.id);
    const first = await socket(k.key);
    await startBroadcast(first, { broadcast_token: b.token, broadcast_phase: 'standby' });
    first.send(vt('broadcast_go_live'));
    await event(first, 'phase_changed');
    first.ws.terminate();
    await waitFor(first, () => v.seen.some((e) => e.event === 'host_disconnected'), 5000);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data).toMatchObject({
      status: 'active',
      phase: 'live',
    });

    const back = await socket(k.key);
    const resumed = await startBroadcast(back, { broadcast_token: b.token, broadcast_phase: 'standby' });
    expect(resumed.data).toMatchObject({ action: 'session_started', phase: 'live', recording_type: 'broadcast' });
    await waitFor(back, () => v.seen.some((e) => e.event === 'host_reconnected'), 5000);
    expect(v.seen.find((e) => e.event === 'host_reconnected')!.data).toEqual({ resumed: true, phase: 'live' });
    // Live: the new recording numbers its sentences from 1, so viewers clear their captions.
    await waitFor(back, () => v.seen.some((e, i) => e.event === 'recording_started' && v.names()[i - 1] === 'host_reconnected'), 5000);

    // Dropped again and never back: after the host wait (2 s here) the broadcast ends.
    back.ws.terminate();
    await waitFor(back, () => v.seen.filter((e) => e.event === 'host_disconnected').length === 2, 5000);
    await waitFor(back, () => v.seen.some((e) => e.event === 'ended'), 10_000);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key: k.key })).body.data.status).toBe('ended');
    v.off();
  }, 90_000);
});
