/**
 * Task outcomes published by the tasks feature become recording.* notifications with the
 * spec's data, and ordered sequences (recording.completed then import.completed) are sent in order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_COMPLETED_TOPIC, TASK_FAILED_TOPIC } from '../../src/tasks/service.js';
import { RECORDING_FAILED_TEXT } from '../../src/webhooks/events.js';
import { backends, startTestApp } from '../support/app.js';
import { startReceiver, until } from './receiver.js';

describe.each(backends())('task webhooks (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('turns task.completed and task.failed into recording.completed and recording.failed', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const t = await startTestApp({ backend });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ webhookUrl: rx.url });
    const base = { account_id: key.account_id, key_id: key.key_id };
    await t.app.deps.bus.publish(TASK_COMPLETED_TOPIC, {
      ...base,
      task_id: 't-1',
      name: 'Weekly sync',
      duration_ms: 125000,
      type_source: 'realtime',
      transcription_languages: ['en-US'],
      translation_languages: ['es'],
      at: '2026-01-01T00:00:00.000Z',
    });
    await until(() => rx.received.length === 2, 5000, 'recording.completed');
    await t.app.deps.bus.publish(TASK_FAILED_TOPIC, {
      ...base,
      task_id: 't-2',
      failure_source: 'user_forced',
      at: '2026-01-01T00:00:00.000Z',
    });
    await until(() => rx.received.length === 3, 5000, 'recording.failed user_forced');
    await t.app.deps.bus.publish(TASK_FAILED_TOPIC, {
      ...base,
      task_id: 't-3',
      failure_source: 'processing',
      at: '2026-01-01T00:00:00.000Z',
    });
    await until(() => rx.received.length === 4, 5000, 'recording.failed');
    expect(rx.received.slice(1).map((r) => [r.json.event, r.json.data])).toEqual([
      [
        'recording.completed',
        {
          task_id: 't-1',
          name: 'Weekly sync',
          duration_ms: 125000,
          type_source: 'realtime',
          transcription_languages: ['en-US'],
          translation_languages: ['es'],
        },
      ],
      ['recording.failed', { task_id: 't-2', error: RECORDING_FAILED_TEXT, failure_source: 'user_forced' }],
      ['recording.failed', { task_id: 't-3', error: RECORDING_FAILED_TEXT }],
    ]);

    // A task whose outcome the imports feature announces itself is skipped here.
    t.app.deps.webhooks.taskRouting = async (taskId) => (taskId === 't-4' ? { callbackUrl: null, announcedElsewhere: true } : null);
    await t.app.deps.bus.publish(TASK_FAILED_TOPIC, {
      ...base,
      task_id: 't-4',
      failure_source: 'processing',
      at: '2026-01-01T00:00:00.000Z',
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.received).toHaveLength(4);
  });

  it('sends a sequence in order: the second only after the first one was tried', async () => {
    const rx = await startReceiver((r, res) => {
      if (r.json.event === 'recording.completed') setTimeout(() => res.end('ok'), 300);
      else res.end('ok');
    });
    cleanup.push(() => rx.close());
    const t = await startTestApp({ backend });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ webhookUrl: rx.url });
    const ids = await t.app.deps.webhooks.notifySequence({ accountId: key.account_id, keyId: key.key_id }, [
      {
        event: 'recording.completed',
        data: {
          task_id: 't',
          name: 'n',
          duration_ms: 1,
          type_source: 'import',
          transcription_languages: ['en-US'],
          translation_languages: [],
        },
      },
      { event: 'import.completed', data: { import_id: 'i', task_id: 't', name: 'n', duration_ms: 1 } },
    ]);
    expect(ids).toHaveLength(2);
    await until(() => rx.received.length === 3, 5000, 'both');
    const [a, b] = [rx.received[1]!, rx.received[2]!];
    expect([a.json.event, b.json.event]).toEqual(['recording.completed', 'import.completed']);
    expect(b.at - a.at).toBeGreaterThanOrEqual(280);
    expect(new Set([a.json.delivery_id, b.json.delivery_id])).toEqual(new Set(ids));
  });
});
