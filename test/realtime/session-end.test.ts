/**
 * A successful session never ends on an error code (issue 26, finding 7): the pre-start
 * deadline armed at connect closed a connection with 4008 "no start before the deadline"
 * once its recording had ended, 18 s after `task_complete`. After `task_complete` the
 * connection waits PARLEY_WS_PRESTART_SECONDS (shortened here) for another start, then
 * closes with 1000. Real WebSocket client, real engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestApp } from '../support/app.js';
import { connect, event, startLiveApp, startSession, ticketFor, vt } from './support.js';

const PRESTART_SECONDS = 3;
/** Half a second of 16 kHz s16le silence. */
const HALF_SECOND = Buffer.alloc(16_000).toString('base64');

describe.each(backends())('the end of a live session (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, { env: { PARLEY_WS_PRESTART_SECONDS: String(PRESTART_SECONDS) } });
  }, 60_000);
  afterAll(() => t?.close());

  /** Connects, records a second of audio and stops; resolves at task_complete with the connect time. */
  async function oneRecording() {
    const connectedAt = Date.now();
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    await startSession(cl, {});
    // Spread over a second, so task_complete comes well after the connect and the two deadlines are apart.
    cl.send(vt('audio', { audio: HALF_SECOND }));
    await new Promise((r) => setTimeout(r, 1000));
    cl.send(vt('audio', { audio: HALF_SECOND }));
    cl.send(vt('stop'));
    const done = await event(cl, 'task_complete', 20_000);
    return { cl, connectedAt, completedAt: Date.now(), done };
  }

  it('closes with 1000, not 4008, when no new start follows task_complete', async () => {
    const { cl, connectedAt, completedAt, done } = await oneRecording();
    expect(done.data.status).toBe('completed');
    // The connect-time deadline must still be ahead, or this test would not see the old 4008.
    expect(completedAt - connectedAt).toBeLessThan(PRESTART_SECONDS * 1000);
    const closed = await cl.closed;
    const idleMs = Date.now() - completedAt;
    expect(closed).toEqual({ code: 1000, reason: 'session complete' });
    // It waited its full PARLEY_WS_PRESTART_SECONDS after task_complete for another start.
    expect(idleMs).toBeGreaterThanOrEqual(PRESTART_SECONDS * 1000 - 100);
    expect(cl.messages.filter((m) => m.type === 'error')).toEqual([]);
  }, 30_000);

  it('keeps the connection past the connect-time deadline for another start on it', async () => {
    const { cl, connectedAt, completedAt } = await oneRecording();
    // Past the deadline armed at connect (where the old code closed with 4008), before the wait after task_complete ends.
    await new Promise((r) => setTimeout(r, Math.max(0, connectedAt + PRESTART_SECONDS * 1000 + 200 - Date.now())));
    expect(Date.now()).toBeLessThan(completedAt + PRESTART_SECONDS * 1000);
    const early = await Promise.race([cl.closed, new Promise((r) => setTimeout(() => r('open'), 50))]);
    expect(early).toBe('open');
    const again = await startSession(cl, {});
    expect(again.data.action).toBe('session_started');
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 20_000);
    cl.ws.close(1000);
    expect((await cl.closed).code).toBe(1000);
  }, 30_000);

  it('still closes a connection that never starts with 4008 at the deadline', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    expect(await cl.closed).toEqual({ code: 4008, reason: 'no start before the deadline' });
  }, 15_000);
});
