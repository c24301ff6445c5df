/**
 * Backpressure of live recognition (docs/live-modes.md, "When recognition falls behind"): when
 * more audio waits for recognition than PARLEY_STT_MAX_BACKLOG_MS, new audio is recorded but
 * not recognized, and the owner gets one `stt_audio_dropped` warning per episode; the recording
 * goes on and keeps every byte. Provoked for real: a 1.5 s chunk and, right behind it, a 0.4 s
 * chunk reach PocketSphinx before it can have decoded the first (the limit here is 200 ms).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../support/app.js';
import { connect, event, JFK, jfkPcm, startLiveApp, startSession, streamPcm, ticketAndKey, vt } from './support.js';

describe.skipIf(!existsSync(JFK))('live recognition backpressure', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp('sqlite', { env: { PARLEY_STT_MAX_BACKLOG_MS: '200' } });
  }, 60_000);
  afterAll(() => t?.close());

  it('drops audio past the backlog limit with stt_audio_dropped, keeps recording it, and ends normally', async () => {
    const pcm = jfkPcm();
    const { ticket, key } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(cl, { transcription_languages: ['en-US'], audio_format: 'pcm' });
    const taskId = started.data.task_id as string;
    // Binary frames back to back: 1.5 s (admitted, the backlog is empty) then 0.4 s (the first is still being decoded).
    cl.ws.send(pcm.subarray(0, 48_000));
    cl.ws.send(pcm.subarray(48_000, 60_800));
    const dropped = await cl.next((m) => m.type === 'error' && m.data.error_code === 'stt_audio_dropped', 10_000);
    expect(dropped.data).toMatchObject({
      error_code: 'stt_audio_dropped',
      severity: 'warning',
      context: 'stt',
      details: { language: 'en-US', limit_ms: 200 },
    });
    expect(dropped.data.details.backlog_ms).toBeGreaterThan(200);
    // The recording goes on: the rest of the speech at real time, then stop.
    await new Promise((r) => setTimeout(r, 1500));
    await streamPcm(cl, pcm.subarray(60_800), 1);
    cl.send(vt('stop'));
    const done = await event(cl, 'task_complete', 60_000);
    expect(done.data).toMatchObject({ task_id: taskId, status: 'completed' });
    // Every byte is in the recording, the dropped ones too (duration within one 100 ms chunk).
    const task = (await api(t.url, 'GET', `/api/v1/tasks/${taskId}`, { key })).body.data;
    expect(Math.abs(task.duration_ms - pcm.length / 32)).toBeLessThan(150);
    // Warnings are not ending errors: no fatal error came.
    expect(cl.messages.filter((m) => m.type === 'error' && m.data.severity === 'fatal')).toEqual([]);
    cl.ws.close();
  }, 90_000);
});
