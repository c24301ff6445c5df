/**
 * POST /tasks/{id}/force-fail end to end: a signed recording.failed with failure_source
 * user_forced reaches the key's webhook URL.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { type Receiver, startReceiver } from './receiver.js';

describe.each(backends())('force-fail webhook (%s)', (backend) => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    t = await startTestApp({ backend, env: { PARLEY_ROLES: 'api,worker' }, bus: new InProcessBus() });
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('sends a signed recording.failed with failure_source user_forced', async () => {
    const key = await t.app.deps.keys.createKey({ name: 'k', webhookUrl: rx.url });
    const store = t.app.deps.tasks.store;
    const task = await store.createTask({
      accountId: key.account_id,
      keyId: key.key_id,
      title: 'stuck',
      type: 'transcribe',
      typeSource: 'realtime',
      recognitionMode: 'single',
      processingStatus: 'processing',
    });
    const r = await api(t.url, 'POST', `/api/v1/tasks/${task.taskId}/force-fail`, { key: key.api_key });
    expect(r.status).toBe(200);
    await until(() => rx.received.some((x) => x.json?.event === 'recording.failed'), 10_000, 'recording.failed');
    const hook = rx.received.find((x) => x.json?.event === 'recording.failed')!;
    expect(hook.json.data).toEqual({ task_id: task.taskId, error: expect.any(String), failure_source: 'user_forced' });
    const ts = hook.headers['x-svc-timestamp'] as string;
    expect(hook.headers['x-svc-signature']).toBe(
      `sha256=${createHmac('sha256', key.webhook_secret).update(`${ts}.${hook.body}`).digest('hex')}`,
    );
  });
});
