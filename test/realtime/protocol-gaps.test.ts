/**
 * Small protocol rules of the live session, over a real WebSocket: fixed-value start fields
 * refused with their lists, audio before start, and a start right after an ending error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestApp } from '../support/app.js';
import { connect, errorWith, event, startLiveApp, ticketFor, vt } from './support.js';

describe.each(backends())('live protocol gaps (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, { env: { PARLEY_WS_SILENCE_WARNING_SECONDS: '1' } });
  }, 60_000);
  afterAll(() => t?.close());

  const open = async () => connect(t, [`ticket.${await ticketFor(t)}`]);

  it('every fixed-value start field outside its list: invalid_parameter with details.field and details.valid_values', async () => {
    const cl = await open();
    const cases: [Record<string, unknown>, string, unknown[]][] = [
      [{ options: { speaking_speed: 'warp' } }, 'options.speaking_speed', ['slow', 'normal', 'fast']],
      [{ options: { profanity_handling: 'MASK' } }, 'options.profanity_handling', ['mask', 'remove', 'show']],
      [{ conversation_mode: 'Manual' }, 'conversation_mode', ['manual', 'auto']],
      [{ tts_mode: 'later' }, 'tts_mode', ['sync', 'async']],
      [{ summary_mode: 'smart' }, 'summary_mode', ['builtin', 'custom']],
    ];
    for (const [data, field, valid] of cases) {
      cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...data }));
      const m = await cl.next((x) => x.type === 'error');
      expect(m.data).toMatchObject({ error_code: 'invalid_parameter', details: { field, valid_values: valid } });
    }
    // A valid speaking speed is taken.
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], options: { speaking_speed: 'fast' } }));
    await event(cl, 'session_started', 15_000);
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 20_000);
    cl.ws.close();
  }, 60_000);

  it('audio before start (JSON or binary) answers session_not_started and keeps the connection', async () => {
    const cl = await open();
    cl.send(vt('audio', { audio: Buffer.alloc(3200).toString('base64') }));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'session_not_started',
      details: { action: 'audio', message_type: 'voice-translation' },
    });
    cl.ws.send(Buffer.alloc(3200));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'session_not_started',
      details: { action: 'audio', message_type: 'binary' },
    });
    cl.send({ type: 'health', data: {} });
    expect((await cl.next((m) => m.type === 'health')).type).toBe('health');
    cl.ws.close();
  }, 30_000);

  it('a start sent right after an ending error gets session_started only after status ended and task_complete', async () => {
    const cl = await open();
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], silenceTimeoutSeconds: 2 }));
    const first = await event(cl, 'session_started', 15_000);
    await errorWith(cl, 'stt_silence_timeout', 10_000);
    // At once, while the first recording is still being finalized.
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    const second = await event(cl, 'session_started', 30_000);
    expect(second.data.task_id).not.toBe(first.data.task_id);
    const actions = cl.messages.filter((m) => m.type === 'voice-translation').map((m) => m.data.action as string);
    const order = actions.filter((a) => a === 'status' || a === 'task_complete' || a === 'session_started');
    expect(order.slice(-3)).toEqual(['status', 'task_complete', 'session_started']);
    const ended = cl.messages.filter((m) => m.data?.action === 'status').at(-1);
    expect(ended?.data.status).toBe('ended');
    // Nothing refused the second start.
    expect(cl.messages.some((m) => m.type === 'error' && m.data.details?.action === 'start')).toBe(false);
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete' && m.data.task_id === second.data.task_id, 20_000);
    cl.ws.close();
  }, 60_000);
});
