/**
 * A broadcast's recordings and their webhooks (spec "Webhooks" rule 4; docs/broadcasts.md):
 * the outcome of each recording goes to the broadcast's callback_url, which takes precedence
 * over the key's webhook_url: `recording.completed` with type_source `realtime` after speech,
 * `recording.failed` with failure_source `no_audio` and a refunded usage row when the host
 * stopped before any audio. Real host over WebSocket, real engines, real receivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, jfkPcm, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { newBroadcast } from './support.js';

describe('broadcast recordings: webhooks to the broadcast callback_url (sqlite, real engines)', () => {
  let t: TestApp;
  let keyHook: Receiver;
  let broadcastHook: Receiver;
  beforeAll(async () => {
    [keyHook, broadcastHook] = await Promise.all([startReceiver(), startReceiver()]);
    t = await startLiveApp('sqlite', { env: { PARLEY_WEBHOOK_RETRY_SCALE: '0.001' } });
  });
  afterAll(async () => {
    await t?.close();
    await keyHook?.close();
    await broadcastHook?.close();
  });

  async function hostKey() {
    const k = await t.app.deps.keys.createKey({ webhookUrl: keyHook.url });
    await t.app.deps.billing.grantCredit({ accountId: k.account_id, points: 50, pool: 'account' });
    return k.api_key;
  }
  async function run(key: string, token: string, pcm: Buffer | null) {
    const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const host = await connect(t, [`ticket.${ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: token, audio_format: 'pcm' }));
    const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
    expect(started.data.action).toBe('session_started');
    if (pcm) await streamPcm(host, pcm, 4);
    host.send(vt('stop'));
    const done = await host.next((m) => m.data?.action === 'task_complete', 90_000);
    host.ws.close();
    return { taskId: started.data.task_id as string, status: done.data.status as string };
  }
  const eventsFor = (r: Receiver, taskId: string) => r.received.filter((x) => x.json?.data?.task_id === taskId).map((x) => x.json);

  it('recording.completed (type_source realtime) goes to the broadcast callback_url, not the key URL', async () => {
    const key = await hostKey();
    const b = await newBroadcast(t, key, {
      name: 'Webhook town hall',
      transcription_languages: ['en'],
      translation_languages: ['es'],
      callback_url: broadcastHook.url,
    });
    const { taskId, status } = await run(key, b.token, jfkPcm().subarray(0, 32_000 * 4));
    expect(status).toBe('completed');
    await until(() => eventsFor(broadcastHook, taskId).length > 0, 30_000, 'recording.completed');
    expect(eventsFor(broadcastHook, taskId)).toEqual([
      expect.objectContaining({
        event: 'recording.completed',
        data: expect.objectContaining({
          task_id: taskId,
          type_source: 'realtime',
          transcription_languages: ['en'],
          translation_languages: ['es'],
          duration_ms: expect.any(Number),
        }),
      }),
    ]);
    expect(eventsFor(keyHook, taskId)).toEqual([]);
  }, 120_000);

  it('no audio: recording.failed with failure_source no_audio to the callback_url, and the usage is refunded', async () => {
    const key = await hostKey();
    const credit = async () => (await api(t.url, 'GET', '/api/v1/me/plan', { key })).body.data.available_credit as number;
    const before = await credit();
    const b = await newBroadcast(t, key, {
      transcription_languages: ['en'],
      translation_languages: ['es'],
      callback_url: broadcastHook.url,
    });
    const { taskId, status } = await run(key, b.token, null);
    expect(status).toBe('failed');
    await until(() => eventsFor(broadcastHook, taskId).length > 0, 30_000, 'recording.failed');
    expect(eventsFor(broadcastHook, taskId)).toEqual([
      expect.objectContaining({
        event: 'recording.failed',
        data: expect.objectContaining({ task_id: taskId, failure_source: 'no_audio', error: expect.any(String) }),
      }),
    ]);
    expect(eventsFor(keyHook, taskId)).toEqual([]);
    const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key })).body.data.find((u: { task_id: string }) => u.task_id === taskId);
    expect(usage).toMatchObject({ type: 'broadcast', in_progress: false, refunded: true, refund_reason: 'no_audio', points: 0 });
    expect(await credit()).toBeCloseTo(before, 5);
  }, 90_000);
});
