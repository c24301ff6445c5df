import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_EXHAUSTED, type CreditExhaustedEvent } from '../../src/billing/events.js';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { realKey } from '../billing/support.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { connect, ticketAndKey } from './support.js';

// A billed minute is shortened to one second of audio by configuration (the clock path is real).
describe.each(backends())('live billing per minute (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
    const e = await pocketsphinxStreamingFactory.create(ctx as never);
    if ('unavailable' in e) throw new Error(`PocketSphinx unavailable: ${e.unavailable}`);
    t = await startTestApp({
      backend,
      engines: EngineRegistry.fromEngines([e as AnyEngine]),
      env: { PARLEY_REALTIME_BILLING_MINUTE_MS: '1000' },
    });
  });
  afterAll(() => t?.close());

  it('charges each started minute and ends the recording with stt_quota_exceeded when the budget runs out', async () => {
    const { ticket, keyId } = await ticketAndKey(t);
    const minute = t.app.deps.billing.prices.recordingMinute();
    await t.app.deps.keys.updateKey(keyId, { monthlySpendLimit: minute * 2 });
    const cl = await connect(t, [`ticket.${ticket}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    const started = await cl.next((m) => m.data?.action === 'session_started', 10_000);
    const second = Buffer.alloc(32_000);
    for (let i = 0; i < 4; i++) {
      cl.send({ type: 'voice-translation', data: { action: 'audio', audio: second.toString('base64') } });
      await new Promise((r) => setTimeout(r, 300));
    }
    const quota = await cl.next((m) => m.type === 'error' && m.data.error_code === 'stt_quota_exceeded', 10_000);
    expect(quota.data.severity).toBe('fatal');
    const done = await cl.next((m) => m.data?.action === 'task_complete', 20_000);
    expect(done.data.task_id).toBe(started.data.task_id);
    expect(await t.app.deps.billing.monthlySpent(keyId)).toBeCloseTo(minute * 2, 5);
    cl.ws.close();
  }, 60_000);

  it('an account whose credit runs out mid-recording: stt_quota_exceeded and credit.exhausted (cause refused)', async () => {
    const k = await realKey(t);
    const minute = t.app.deps.billing.prices.recordingMinute();
    // One and a half minutes: minute 0 leaves credit (no zero crossing), minute 1 cannot be covered.
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: minute * 1.5, pool: 'account' });
    const exhausted: CreditExhaustedEvent[] = [];
    const off = await t.app.deps.bus.subscribe(CREDIT_EXHAUSTED, (m) => exhausted.push(m));
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    const cl = await connect(t, [`ticket.${r.body.data.ticket}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    await cl.next((m) => m.data?.action === 'session_started', 10_000);
    for (let i = 0; i < 3; i++) {
      cl.send({ type: 'voice-translation', data: { action: 'audio', audio: Buffer.alloc(32_000).toString('base64') } });
      await new Promise((res) => setTimeout(res, 300));
    }
    const quota = await cl.next((m) => m.type === 'error' && m.data.error_code === 'stt_quota_exceeded', 10_000);
    expect(quota.data.details).toMatchObject({ minute: 1 });
    await cl.next((m) => m.data?.action === 'task_complete', 20_000);
    await new Promise((res) => setTimeout(res, 200));
    off();
    expect(exhausted.filter((e) => e.accountId === k.accountId)).toEqual([expect.objectContaining({ cause: 'refused' })]);
    cl.ws.close();
  }, 30_000);

  it('10 s of audio read at once (a real-time client after a 10 s stall of the server) is taken whole, no audio_rate', async () => {
    const { ticket } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    const started = await cl.next((m) => m.data?.action === 'session_started', 10_000);
    const tenthOfSecond = Buffer.alloc(3_200).toString('base64');
    for (let i = 0; i < 100; i++) cl.send({ type: 'voice-translation', data: { action: 'audio', audio: tenthOfSecond } });
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    const done = await cl.next((m) => m.data?.action === 'task_complete', 30_000);
    expect(cl.messages.filter((m) => m.type === 'error' && m.data.details?.reason === 'audio_rate')).toEqual([]);
    expect(done.data.task_id).toBe(started.data.task_id);
    expect(Number(done.data.duration_ms)).toBeGreaterThanOrEqual(9_900);
    cl.ws.close();
  }, 60_000);

  it('audio faster than 4x real time is refused with invalid_data (audio_rate), not buffered', async () => {
    const { ticket } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    await cl.next((m) => m.data?.action === 'session_started', 10_000);
    const twoSeconds = Buffer.alloc(64_000).toString('base64');
    // 40 s at once: past the 30 s burst.
    for (let i = 0; i < 20; i++) cl.send({ type: 'voice-translation', data: { action: 'audio', audio: twoSeconds } });
    const err = await cl.next((m) => m.type === 'error' && m.data.error_code === 'invalid_data', 5000);
    expect(err.data.details).toMatchObject({ reason: 'audio_rate', limit_bytes_per_second: 128_000 });
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    await cl.next((m) => m.data?.action === 'task_complete', 20_000);
    cl.ws.close();
  }, 30_000);
});
