/**
 * Task outcomes made through the task service become recording.* notifications with the
 * spec's data (written in the outcome's transaction, no bus involved); imported tasks are
 * announced by their import, later outcomes of theirs go to the import's callback_url; ordered
 * sequences (recording.completed then import.completed) are sent in order.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RECORDING_FAILED_TEXT } from '../../src/webhooks/events.js';
import { backends, startTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

async function task(
  t: TestApp,
  key: { account_id: string; key_id: string },
  extra: { title?: string; translationLanguages?: string[] } = {},
) {
  return t.app.deps.tasks.store.createTask({
    accountId: key.account_id,
    keyId: key.key_id,
    title: extra.title ?? 'n',
    type: 'transcribe',
    typeSource: 'realtime',
    recognitionMode: 'single',
    processingStatus: 'processing',
    transcriptionLanguages: ['en-US'],
    translationLanguages: extra.translationLanguages,
  });
}

describe.each(backends())('task webhooks (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('turns completed and failed tasks into recording.completed and recording.failed', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const t = await startTestApp({ backend });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ webhookUrl: rx.url });
    const { tasks } = t.app.deps.tasks;
    const t1 = await task(t, key, { title: 'Weekly sync', translationLanguages: ['es'] });
    await tasks.complete(t1.taskId, { durationMs: 125000 });
    await until(() => rx.received.length === 2, 5000, 'recording.completed');
    const t2 = await task(t, key);
    await tasks.fail(t2.taskId, { source: 'user_forced' });
    await until(() => rx.received.length === 3, 5000, 'recording.failed user_forced');
    const t3 = await task(t, key);
    await tasks.fail(t3.taskId, { source: 'processing' });
    await until(() => rx.received.length === 4, 5000, 'recording.failed');
    expect(rx.received.slice(1).map((r) => [r.json.event, r.json.data])).toEqual([
      [
        'recording.completed',
        {
          task_id: t1.taskId,
          name: 'Weekly sync',
          duration_ms: 125000,
          type_source: 'realtime',
          transcription_languages: ['en-US'],
          translation_languages: ['es'],
        },
      ],
      ['recording.failed', { task_id: t2.taskId, error: RECORDING_FAILED_TEXT, failure_source: 'user_forced' }],
      ['recording.failed', { task_id: t3.taskId, error: RECORDING_FAILED_TEXT }],
    ]);

    // A task whose import is still pending: the import announces the outcome itself, nothing here.
    const cb = await startReceiver();
    cleanup.push(() => cb.close());
    const t4 = await task(t, key);
    const imports = t.app.deps.imports.store;
    const imp = await imports.insert({
      importId: randomUUID(),
      accountId: key.account_id,
      keyId: key.key_id,
      taskId: t4.taskId,
      originalFilename: 'a.wav',
      fileSizeBytes: 1,
      format: 'wav',
      durationMs: 1000,
      sourceKey: `tasks/${t4.taskId}/source.wav`,
      options: { transcriptionLanguages: ['en-US'], translationLanguages: [], recognitionMode: 'single', summary: null, glossary: null },
      callbackUrl: cb.url,
    });
    await tasks.fail(t4.taskId, { source: 'processing' });
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.received).toHaveLength(4);
    expect(cb.received).toHaveLength(0);
    // Once the import has ended, later outcomes of its task go to the import's callback_url.
    await imports.fail(imp.importId, 'internal_error', 'x');
    await t.app.deps.tasks.store.setStatus(t4.taskId, 'processing');
    await tasks.complete(t4.taskId);
    await until(() => cb.received.length === 1, 5000, 'recording.completed to the callback_url');
    expect(cb.received[0]!.json).toMatchObject({ event: 'recording.completed', data: { task_id: t4.taskId } });
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
