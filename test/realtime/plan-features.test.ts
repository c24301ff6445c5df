/**
 * Plan features of live recordings over a real WebSocket: a plan-bound key whose plan lacks a
 * feature the start asks for is refused with plan_feature_not_allowed (connection kept), and a
 * running recording whose plan loses a feature it uses stops. A billed minute is one second here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realKey } from '../billing/support.js';
import { api, backends, type TestApp } from '../support/app.js';
import { connect, errorWith, event, startLiveApp, startSession, vt } from './support.js';

const limits = {
  daily_soft_limit_minutes: null,
  daily_hard_limit_minutes: null,
  max_concurrent_sessions: null,
  max_session_minutes: null,
};
const CATALOGUE = JSON.stringify({
  full: { features: { transcribe: true, translation: true, tts: true }, limits },
  bare: { features: { transcribe: true }, limits },
});
const HALF_SECOND = Buffer.alloc(16_000).toString('base64');

describe.each(backends())('plan features of live recordings (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, { env: { PARLEY_REALTIME_BILLING_MINUTE_MS: '1000', PARLEY_PLANS: CATALOGUE } });
  }, 60_000);
  afterAll(() => t?.close());

  const onPlan = async (planName: string) => {
    const k = await realKey(t);
    await t.app.deps.plans.setPlan(k.accountId, { mode: 'unlimited-plan', planName });
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    expect(r.status).toBe(200);
    return { ...k, cl: await connect(t, [`ticket.${r.body.data.ticket}`]) };
  };

  it('a plan without translation: start refused with plan_feature_not_allowed, the connection kept', async () => {
    const { cl } = await onPlan('bare');
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], translation_languages: ['es'] }));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'plan_feature_not_allowed',
      severity: 'fatal',
      details: { field: 'translation_languages', plan: 'bare' },
    });
    // Still open: a start the plan covers goes through.
    await startSession(cl, {});
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 20_000);
    cl.ws.close();
  }, 60_000);

  it('a plan without the recognition mode (multi_language, multi_channel): plan_feature_not_allowed, field recognition_mode', async () => {
    const { cl } = await onPlan('bare');
    const modes = [
      { recognition_mode: 'multi_language' },
      { recognition_mode: 'multi_channel', channel_mode: 'interleaved', channels: [{ channel_id: 1, language: 'en' }] },
    ];
    for (const mode of modes) {
      cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...mode }));
      expect((await errorWith(cl, 'plan_feature_not_allowed')).data).toMatchObject({
        severity: 'fatal',
        details: { field: 'recognition_mode', plan: 'bare' },
      });
    }
    cl.ws.close();
  }, 60_000);

  it('the plan loses a feature while recording: plan_feature_not_allowed at the next minute, the recording stops', async () => {
    const { cl, accountId } = await onPlan('full');
    const started = await startSession(cl, { translation_languages: ['es'] });
    cl.send(vt('audio', { audio: HALF_SECOND }));
    await t.app.deps.plans.setPlan(accountId, { mode: 'unlimited-plan', planName: 'bare' });
    const feeding = (async () => {
      for (let i = 0; i < 8 && !cl.messages.some((m) => m.data?.error_code === 'plan_feature_not_allowed'); i++) {
        cl.send(vt('audio', { audio: HALF_SECOND }));
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const err = await errorWith(cl, 'plan_feature_not_allowed', 15_000);
    expect(err.data).toMatchObject({ severity: 'fatal', details: { field: 'translation_languages', plan: 'bare', minute: 1 } });
    const done = await event(cl, 'task_complete', 30_000);
    expect(done.data).toMatchObject({ task_id: started.data.task_id });
    await feeding;
    // The recording ended: audio is refused now.
    cl.send(vt('audio', { audio: HALF_SECOND }));
    expect((await cl.next((m) => m.type === 'error' && m.data.error_code === 'session_not_started')).data.details.action).toBe('audio');
    cl.ws.close();
  }, 60_000);
});
