import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { type Client, connect, errorWith, event, liveEngines, startSession, ticketFor, vt } from './support.js';

/** One second of a quiet tone: audio exists, so the task must complete, not fail. */
function tone(): string {
  const pcm = Buffer.alloc(32_000);
  for (let i = 0; i < 16_000; i++) pcm.writeInt16LE(Math.round(2000 * Math.sin(i / 10)), i * 2);
  return pcm.toString('base64');
}

describe('graceful shutdown (sqlite)', () => {
  let second: TestApp | undefined;
  afterAll(async () => {
    await second?.close();
    if (second) rmSync(second.dataDir, { recursive: true, force: true });
  });

  it('drains recordings (client stop or drain deadline), refuses a start and closes every connection with 1001; nothing recorded is lost', async () => {
    const first = await startTestApp({ backend: 'sqlite', engines: await liveEngines(), env: { PARLEY_WS_DRAIN_SECONDS: '2' } });
    const record = async () => {
      const cl = await connect(first, [`ticket.${await ticketFor(first)}`]);
      const started = await startSession(cl, {});
      cl.send(vt('audio', { audio: tone() }));
      cl.send({ type: 'health', data: {} });
      await cl.next((m) => m.type === 'health');
      return { cl, taskId: started.data.task_id as string };
    };
    const keeps = await record(); // goes on until the drain deadline
    const stops = await record(); // stops when told about the shutdown
    const idle: Client = await connect(first, [`ticket.${await ticketFor(first)}`]);

    // The client that stops on service_shutdown: still recording, so its stop is honoured.
    void errorWith(stops.cl, 'service_shutdown', 10_000).then(() => {
      stops.cl.send(vt('audio', { audio: tone() }));
      stops.cl.send(vt('stop'));
    });
    // The idle client tries to start: refused, connection closed.
    const refused = errorWith(idle, 'service_shutdown', 10_000).then(async () => {
      idle.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
      return idle.next((m) => m.type === 'error', 5000);
    });
    const closing = Date.now();
    await first.app.close();

    expect((await refused).data).toMatchObject({ error_code: 'service_shutdown', severity: 'warning' });
    expect((await idle.closed).code).toBe(1001);
    expect((await event(stops.cl, 'task_complete', 1000)).data).toMatchObject({
      task_id: stops.taskId,
      status: 'completed',
      duration_ms: 2000,
    });
    expect((await stops.cl.closed).code).toBe(1001);
    expect(keeps.cl.messages.some((m) => m.type === 'error' && m.data.error_code === 'service_shutdown')).toBe(true);
    expect((await event(keeps.cl, 'task_complete', 1000)).data).toMatchObject({ task_id: keeps.taskId, status: 'completed' });
    expect((await keeps.cl.closed).code).toBe(1001);
    expect(Date.now() - closing).toBeGreaterThanOrEqual(2000); // the drain deadline was waited for

    second = await startTestApp({ backend: 'sqlite', reuse: { dataDir: first.dataDir } });
    const store = second.app.deps.tasks.store;
    expect(await store.getTask(keeps.taskId)).toMatchObject({ processingStatus: 'completed', durationMs: 1000 });
    expect(await store.getTask(stops.taskId)).toMatchObject({ processingStatus: 'completed', durationMs: 2000 });
  }, 60_000);
});
