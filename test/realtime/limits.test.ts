/**
 * Limits while a recording runs, on real time: a billed minute is shortened to one second of
 * audio by configuration (PARLEY_REALTIME_BILLING_MINUTE_MS) and the silence timeout by the
 * start's own silenceTimeoutSeconds; the limits calculator and the clock path are the real ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realKey } from '../billing/support.js';
import { api, backends, type TestApp } from '../support/app.js';
import { connect, errorWith, event, startLiveApp, startSession, vt } from './support.js';

const limits = (l: Record<string, number>) => ({
  daily_soft_limit_minutes: null,
  daily_hard_limit_minutes: null,
  max_concurrent_sessions: null,
  max_session_minutes: null,
  ...l,
});
const CATALOGUE = JSON.stringify({
  soft: { features: { transcribe: true }, limits: limits({ daily_soft_limit_minutes: 2 }) },
  hard: { features: { transcribe: true }, limits: limits({ daily_hard_limit_minutes: 2 }) },
  session: { features: { transcribe: true }, limits: limits({ max_session_minutes: 2 }) },
  single: { features: { transcribe: true }, limits: limits({ max_concurrent_sessions: 1 }) },
  notranslate: { features: { transcribe: true }, oneoff_features: {}, limits: limits({}) },
  nolive: { features: {}, limits: limits({}) },
});

const SECOND = Buffer.alloc(32_000).toString('base64');

describe.each(backends())('limits while recording (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, {
      env: { PARLEY_REALTIME_BILLING_MINUTE_MS: '1000', PARLEY_PLANS: CATALOGUE, PARLEY_WS_SILENCE_WARNING_SECONDS: '1' },
    });
  }, 60_000);
  afterAll(() => t?.close());

  /** A key on an account with plan-bound unlimited plan `planName`, connected with a fresh ticket. */
  const onPlan = async (planName: string) => {
    const k = await realKey(t);
    await t.app.deps.plans.setPlan(k.accountId, { mode: 'unlimited-plan', planName });
    const ticket = async () => {
      const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
      if (r.status !== 200) throw new Error(`ticket: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data.ticket as string;
    };
    return { ...k, cl: await connect(t, [`ticket.${await ticket()}`]), ticket };
  };
  /** Sends half a second of audio every 250 ms (2x real time) until `stop` resolves. */
  const feed = (cl: Awaited<ReturnType<typeof onPlan>>['cl'], seconds: number) =>
    (async () => {
      for (let i = 0; i < seconds * 2; i++) {
        cl.send(vt('audio', { audio: SECOND.slice(0, SECOND.length / 2) }));
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

  it('the daily soft limit stops the recording with daily_limit_disconnect; a new start is allowed at once', async () => {
    const { cl } = await onPlan('soft');
    const started = await startSession(cl, {});
    const feeding = feed(cl, 4);
    const err = await errorWith(cl, 'daily_limit_disconnect', 10_000);
    expect(err.data).toMatchObject({ severity: 'error', details: { limit: 'daily_soft_limit_minutes', minute: 2 } });
    const done = await event(cl, 'task_complete', 20_000);
    expect(done.data).toMatchObject({ task_id: started.data.task_id, status: 'completed', duration_ms: 2000 });
    await feeding;
    // Soft: starting again works at once (and is stopped again at its next minute).
    const again = await startSession(cl, {});
    expect(again.data.task_id).not.toBe(started.data.task_id);
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 20_000);
    cl.ws.close();
  }, 60_000);

  it('the daily hard limit stops it with daily_limit_reached and refuses the next start', async () => {
    const { cl } = await onPlan('hard');
    await startSession(cl, {});
    const feeding = feed(cl, 4);
    const err = await errorWith(cl, 'daily_limit_reached', 10_000);
    expect(err.data).toMatchObject({ severity: 'fatal', details: { limit: 'daily_hard_limit_minutes' } });
    expect(err.data.details.restriction_recovery_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    await event(cl, 'task_complete', 20_000);
    await feeding;
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    expect((await cl.next((m) => m.type === 'error' && m.data.details?.action !== 'audio')).data).toMatchObject({
      error_code: 'daily_limit_reached',
    });
    cl.ws.close();
  }, 60_000);

  it('max_session_minutes stops the recording with daily_limit_disconnect (details.limit max_session_minutes)', async () => {
    const { cl } = await onPlan('session');
    await startSession(cl, {});
    const feeding = feed(cl, 4);
    const err = await errorWith(cl, 'daily_limit_disconnect', 10_000);
    await feeding;
    expect(err.data.details).toMatchObject({ limit: 'max_session_minutes', max_session_minutes: 2 });
    expect((await event(cl, 'task_complete', 20_000)).data.duration_ms).toBe(2000);
    cl.ws.close();
  }, 60_000);

  it('plan features and the concurrent-session cap are checked at start; the connection stays', async () => {
    const nolive = await onPlan('nolive');
    nolive.cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    expect((await nolive.cl.next()).data).toMatchObject({
      error_code: 'plan_feature_not_allowed',
      severity: 'fatal',
      details: { field: 'type' },
    });
    nolive.cl.send({ type: 'health', data: {} });
    expect((await nolive.cl.next()).type).toBe('health');
    nolive.cl.ws.close();

    const single = await onPlan('single');
    await startSession(single.cl, {});
    const second = await connect(t, [`ticket.${await single.ticket()}`]);
    second.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    expect((await second.next()).data).toMatchObject({ error_code: 'concurrency_limit_reached', severity: 'error', details: { max: 1 } });
    // The slot is freed when task_complete is sent.
    single.cl.send(vt('stop'));
    await event(single.cl, 'task_complete', 20_000);
    await startSession(second, {});
    second.send(vt('stop'));
    await event(second, 'task_complete', 20_000);
    single.cl.ws.close();
    second.ws.close();
  }, 60_000);

  it('silence: stt_silence_warning, then stt_silence_timeout ends the recording; paused time does not count', async () => {
    const { cl } = await onPlan('soft');
    const startedAt = Date.now();
    await startSession(cl, { silenceTimeoutSeconds: 2 });
    const warning = await errorWith(cl, 'stt_silence_warning', 5000);
    expect(warning.data).toMatchObject({ severity: 'warning', details: { silenceSeconds: 1, remainingSeconds: 1 } });
    const timeout = await errorWith(cl, 'stt_silence_timeout', 5000);
    expect(timeout.data).toMatchObject({ severity: 'fatal', details: { silence_seconds: 2 } });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
    await event(cl, 'task_complete', 20_000);

    // Paused for 3 s (longer than the timeout): no warning, no end; the count goes on after resume.
    await startSession(cl, { silenceTimeoutSeconds: 2 });
    cl.send(vt('pause'));
    await new Promise((r) => setTimeout(r, 3000));
    expect(cl.messages.filter((m) => m.data?.error_code?.startsWith('stt_silence')).length).toBe(2);
    const resumedAt = Date.now();
    cl.send(vt('resume'));
    await errorWith(cl, 'stt_silence_timeout', 5000);
    expect(Date.now() - resumedAt).toBeGreaterThanOrEqual(1500);
    await event(cl, 'task_complete', 20_000);
    cl.ws.close();
  }, 60_000);
});
