/**
 * Force-failing a live recording that received no audio: the minute charged at start is
 * refunded (no audio is never charged), while the outcome stays the user's: the task and its
 * `recording.failed` webhook say `failure_source: user_forced`, not no_audio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../support/app.js';
import { outboxFor } from '../support/outbox.js';
import { connect, errorWith, event, startLiveApp, startSession, ticketAndKey } from './support.js';

describe('force-fail of a recording without audio', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp('sqlite');
  }, 60_000);
  afterAll(() => t?.close());

  it('refunds the recording and keeps failure_source user_forced', async () => {
    const { ticket, key } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const taskId = (await startSession(cl, {})).data.task_id as string;
    const before = await api(t.url, 'GET', '/api/v1/me/usage', { key });
    expect(before.body.data.find((u: { task_id: string }) => u.task_id === taskId)).toMatchObject({ refunded: false });
    expect(before.body.data.find((u: { task_id: string }) => u.task_id === taskId).points).toBeGreaterThan(0);

    const r = await api(t.url, 'POST', `/api/v1/tasks/${taskId}/force-fail`, { key });
    expect(r.status).toBe(200);
    await errorWith(cl, 'session_force_ended', 10_000);
    expect((await event(cl, 'task_complete', 20_000)).data).toMatchObject({ task_id: taskId, status: 'failed' });

    const row = (await api(t.url, 'GET', '/api/v1/me/usage', { key })).body.data.find((u: { task_id: string }) => u.task_id === taskId);
    expect(row).toMatchObject({ type: 'recording', points: 0, refunded: true, refund_reason: 'no_audio' });
    const task = (await api(t.url, 'GET', `/api/v1/tasks/${taskId}`, { key })).body.data;
    expect(task).toMatchObject({ processing_status: 'failed', failure_source: 'user_forced' });
    expect((await outboxFor(t.app, taskId)).map((e) => [e.event, e.data.failure_source])).toEqual([['recording.failed', 'user_forced']]);
    cl.ws.close();
  }, 60_000);
});
