/**
 * A recording outlives its socket: force-fail of the live task ends the session (over the bus,
 * Redis on PostgreSQL when REDIS_URL is set), and a client that vanishes mid-sentence leaves a
 * task finalized after the grace period with the duration of the audio it sent.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, type TestApp } from '../support/app.js';
import { connect, errorWith, event, JFK, jfkPcm, startLiveApp, startSession, streamPcm, ticketAndKey, vt } from './support.js';

describe.each(backends())('recording lifecycle (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, { env: { PARLEY_WS_DISCONNECT_GRACE_SECONDS: '2' } });
  }, 60_000);
  afterAll(() => t?.close());
  const taskOf = (id: string) => t.app.deps.tasks.store.getTask(id);

  it('force-fail of the live task: session_force_ended, the recording stops, then the task fails user_forced', async () => {
    const { ticket, key } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(cl, {});
    const taskId = started.data.task_id as string;
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health');
    const r = await api(t.url, 'POST', `/api/v1/tasks/${taskId}/force-fail`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ task_id: taskId, processing_status: 'failed', failure_source: 'user_forced' });
    const ended = await errorWith(cl, 'session_force_ended', 10_000);
    expect(ended.data).toMatchObject({ severity: 'fatal', details: { task_id: taskId } });
    const done = await event(cl, 'task_complete', 20_000);
    expect(done.data).toMatchObject({ task_id: taskId, status: 'failed', duration_ms: 1000 });
    // Recording stopped: more audio is refused, and the task stays failed with its audio kept.
    cl.send(vt('audio', { audio: Buffer.alloc(3200).toString('base64') }));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'session_not_started',
      details: { action: 'audio' },
    });
    const task = await taskOf(taskId);
    expect(task).toMatchObject({ processingStatus: 'failed', failureSource: 'user_forced', durationMs: 1000 });
    expect(task?.audioKey).toBeTruthy();
    // The connection can record again.
    await startSession(cl, {});
    cl.ws.close();
  }, 60_000);

  it.skipIf(!existsSync(JFK))(
    'a client that vanishes mid-stream: finalized after the grace period, duration = audio sent',
    async () => {
      const pcm = jfkPcm().subarray(0, 32_000 * 4); // 4 s, cut mid-sentence
      const cl = await connect(t, [`ticket.${(await ticketAndKey(t)).ticket}`]);
      const started = await startSession(cl, {});
      const taskId = started.data.task_id as string;
      await streamPcm(cl, pcm, 2);
      cl.send({ type: 'health', data: {} });
      await cl.next((m) => m.type === 'health');
      cl.ws.terminate(); // no close frame, no stop
      await new Promise((r) => setTimeout(r, 500));
      expect((await taskOf(taskId))?.processingStatus).toBe('recording'); // within the grace period
      const until = Date.now() + 20_000;
      let task = await taskOf(taskId);
      while (task?.processingStatus !== 'completed' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 200));
        task = await taskOf(taskId);
      }
      expect(task).toMatchObject({ processingStatus: 'completed', durationMs: 4000 });
      expect(task?.audioKey).toBeTruthy();
      const sentences = await t.app.deps.tasks.store.listSentences(taskId);
      expect(sentences.length).toBeGreaterThan(0);
    },
    60_000,
  );
});
