/**
 * Retry with a real import (issue 5): an import fails because this deployment has no speech
 * recognizer; the operator restarts with engines; POST /tasks/{id}/retry moves the task to
 * `processing`, the transcript is rebuilt from the stored audio, the task completes, and a
 * signed recording.completed goes to the import's callback_url. The import itself stays
 * `failed` (final) and was never charged; the retry is charged once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startTestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { until } from '../support/until.js';
import { startReceiver } from '../webhooks/receiver.js';
import { builtinImportEngines, upload, watchSse } from './support.js';

const mp3 = haveSharedAudio() ? convert(JFK, 'mp3') : null;

describe.skipIf(!mp3)('task retry after a failed import', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-retry-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('rebuilds the transcript from the stored audio and completes the task', async () => {
    const rx = await startReceiver();
    const first = await startTestApp({ reuse: { dataDir } }); // no engines at all
    const key = await first.app.deps.keys.createKey({ name: 'k' });
    await first.app.deps.billing.grantCredit({ accountId: key.account_id, points: 50, pool: 'account' });
    const res = await upload(first.url, key.api_key, { file: { path: mp3! }, fields: { callback_url: rx.url } });
    expect(res.status).toBe(202);
    const id = res.body.data.import_id as string;
    const events = await watchSse(`${first.url}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key.api_key }).done;
    expect(events.at(-1)).toMatchObject({ event: 'failed', data: { error_code: 'stt_init_failed' } });
    const task = (await api(first.url, 'GET', '/api/v1/tasks?status=all', { key: key.api_key })).body.data.tasks[0];
    expect(task.processing_status).toBe('failed');
    await until(() => rx.received.length === 2, 10_000, 'failure webhooks');
    await first.close();

    const second = await startTestApp({ reuse: { dataDir }, engines: await builtinImportEngines() });
    try {
      const r = await api(second.url, 'POST', `/api/v1/tasks/${task.task_id}/retry`, { key: key.api_key });
      expect(r.status).toBe(202);
      expect(r.body.data).toEqual({ task_id: task.task_id, processing_status: 'processing' });
      await until(
        async () =>
          (await api(second.url, 'GET', `/api/v1/tasks?status=all`, { key: key.api_key })).body.data.tasks[0].processing_status ===
          'completed',
        60_000,
        'retry to complete',
      );
      const history = await fetch(`${second.url}/api/v1/sse/history/transcribe/${task.task_id}?api_key=${key.api_key}`).then((x) =>
        x.text(),
      );
      expect(history).toContain('country');
      await until(() => rx.received.some((x) => x.json.event === 'recording.completed'), 10_000, 'recording.completed');
      const done = rx.received.find((x) => x.json.event === 'recording.completed')!;
      expect(done.json.data).toMatchObject({ task_id: task.task_id, type_source: 'import' });
      const imp = await api(second.url, 'GET', `/api/v1/imports/${id}`, { key: key.api_key });
      expect(imp.body.data).toMatchObject({ status: 'failed', error_code: 'stt_init_failed', task_id: null });
      const usage = (await api(second.url, 'GET', '/api/v1/me/usage', { key: key.api_key })).body.data as { type: string }[];
      expect(usage.map((u) => u.type)).toEqual(['import']);
    } finally {
      await second.close();
      await rx.close();
    }
  }, 120_000);
});
