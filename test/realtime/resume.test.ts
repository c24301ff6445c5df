/**
 * Session resume over real WebSocket clients and real engines: a connection dropped
 * mid-sentence and resumed within the grace period continues the same recording, and every
 * resume_* code is provoked. Grace is shortened to 4 s by configuration.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, type TestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';
import {
  type Client,
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  type Msg,
  startLiveApp,
  startSession,
  streamPcm,
  ticketAndKey,
  vt,
} from './support.js';

const GRACE_SECONDS = 4;

async function history(base: string, key: string, taskId: string) {
  const res = await fetch(`${base}/api/v1/sse/history/transcribe/${taskId}`, { headers: { 'x-api-key': key } });
  return (await res.text())
    .split('\n\n')
    .map((b) => parseSseBlock(b.trim()))
    .filter((e) => e !== null);
}

const finals = (messages: Msg[]) =>
  messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin as { sid: number; text: string });

describe.each(backends())('session resume (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, {
      env: { PARLEY_WS_DISCONNECT_GRACE_SECONDS: String(GRACE_SECONDS), PARLEY_WS_SILENCE_WARNING_SECONDS: '1' },
    });
  }, 60_000);
  afterAll(() => t?.close());

  /** A new key with credit and a connected client. */
  const open = async () => {
    const k = await ticketAndKey(t);
    return { ...k, cl: await connect(t, [`ticket.${k.ticket}`]) };
  };
  /** A fresh ticket of `key` (a resume needs a new ticket), connected. */
  const reconnect = async (key: string): Promise<Client> => {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    expect(r.status).toBe(200);
    return connect(t, [`ticket.${r.body.data.ticket}`]);
  };
  const stopAndWait = async (cl: Client) => {
    cl.send(vt('stop'));
    return cl.next((m) => m.data?.action === 'task_complete', 150_000);
  };

  it.skipIf(!existsSync(JFK))(
    'dropped mid-sentence and resumed within grace: one task, audio duration as sent, every final in the transcript',
    async () => {
      const { cl, key } = await open();
      const started = await startSession(cl, {});
      const taskId = started.data.task_id as string;
      expect(started.data.resume_token).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{32}$/);
      expect(started.data.resume_grace_seconds).toBe(GRACE_SECONDS);
      const pcm = jfkPcm();
      // 5.5 s: in the middle of "ask not what your country can do for you".
      const cut = 5500 * 32;
      await streamPcm(cl, pcm.subarray(0, cut), 2);
      cl.ws.terminate();

      const cl2 = await reconnect(key);
      cl2.send(vt('start', { resume_token: started.data.resume_token }));
      const ok = await event(cl2, 'resume_ok', 10_000);
      expect(ok.data).toMatchObject({
        task_id: taskId,
        session_id: started.data.session_id,
        status: 'started',
        received_ms: 5500,
        resume_grace_seconds: GRACE_SECONDS,
      });
      await streamPcm(cl2, pcm.subarray(cut), 2);
      const done = await stopAndWait(cl2);
      expect(done.data).toMatchObject({ task_id: taskId, status: 'completed' });
      const sentMs = pcm.length / 32;
      expect(Math.abs(done.data.duration_ms - sentMs)).toBeLessThanOrEqual(100);

      // One task, with the whole audio.
      const tasks = (await api(t.url, 'GET', '/api/v1/tasks', { key })).body.data.tasks as { task_id: string; duration_ms: number }[];
      expect(tasks.map((x) => x.task_id)).toEqual([taskId]);
      expect(Math.abs((tasks[0]?.duration_ms ?? 0) - sentMs)).toBeLessThanOrEqual(100);

      // Every final either client saw (the second gets those it missed after resume_ok) is in the transcript, and no other.
      const seen = [...finals(cl.messages), ...finals(cl2.messages)];
      const bySid = new Map(seen.map((f) => [f.sid, f.text]));
      const stored = (await history(t.url, key, taskId)).filter((e) => e.event === 'init_sentence').map((e) => e.data);
      expect(stored.length).toBeGreaterThan(0);
      expect(new Set(stored.map((s) => s.sid))).toEqual(new Set(bySid.keys()));
      for (const s of stored) expect(bySid.get(s.sid)).toBe(s.text ?? s.origin);
      expect(
        stored
          .map((s) => s.text ?? s.origin)
          .join(' ')
          .toLowerCase(),
      ).toContain('country');
      cl2.ws.close();
    },
    300_000,
  );

  it('resume_token_invalid (malformed or unknown, here or on any instance), resume_ownership_mismatch, resume_unavailable (ended)', async () => {
    const { cl, key } = await open();
    const started = await startSession(cl, {});
    const token = started.data.resume_token as string;
    cl.ws.terminate();

    const cl2 = await reconnect(key);
    cl2.send(vt('start', { resume_token: 'nonsense' }));
    expect((await errorWith(cl2, 'resume_token_invalid')).data).toMatchObject({ severity: 'error', details: { reason: 'malformed' } });
    const [instance] = token.split('.');
    cl2.send(vt('start', { resume_token: `${instance}.${'A'.repeat(32)}` }));
    expect((await errorWith(cl2, 'resume_token_invalid')).data.details).toMatchObject({ reason: 'unknown' });
    // A token naming another instance is looked up across the fleet (src/realtime/live): none has it.
    cl2.send(vt('start', { resume_token: `00000000-0000-4000-8000-000000000000.${token.split('.')[1]}` }));
    expect((await errorWith(cl2, 'resume_token_invalid')).data.details).toMatchObject({ reason: 'unknown' });

    // Another key (even a valid ticket) cannot take the recording.
    const other = await open();
    other.cl.send(vt('start', { resume_token: token }));
    expect((await errorWith(other.cl, 'resume_ownership_mismatch')).data.severity).toBe('error');
    // The refusals left the connections usable, and the owner can still resume.
    cl2.send(vt('start', { resume_token: token }));
    expect((await event(cl2, 'resume_ok')).data.task_id).toBe(started.data.task_id);
    await stopAndWait(cl2);
    // A stopped recording cannot be resumed.
    const cl3 = await reconnect(key);
    cl3.send(vt('start', { resume_token: token }));
    expect((await errorWith(cl3, 'resume_unavailable')).data.details).toMatchObject({ reason: 'recording_ended' });
    for (const c of [cl2, cl3, other.cl]) c.ws.close();
  }, 60_000);

  it('after the grace period: resume_grace_expired, the recording was finalized', async () => {
    const { cl, key } = await open();
    const started = await startSession(cl, {});
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    await new Promise((r) => setTimeout(r, 300));
    cl.ws.terminate();
    await new Promise((r) => setTimeout(r, (GRACE_SECONDS + 1.5) * 1000));
    const cl2 = await reconnect(key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    expect((await errorWith(cl2, 'resume_grace_expired')).data).toMatchObject({ severity: 'error', details: { reason: 'grace_expired' } });
    // A fresh start on the same connection works (the spec's advice).
    await startSession(cl2, {});
    await stopAndWait(cl2);
    cl2.ws.close();
  }, 60_000);

  it('the silence timer does not run while waiting to be resumed; a still-open old connection is closed (4010)', async () => {
    const { cl, key } = await open();
    const started = await startSession(cl, { silenceTimeoutSeconds: 2 });
    cl.ws.terminate();
    // Away longer than the silence timeout, within the grace period.
    await new Promise((r) => setTimeout(r, 3000));
    const cl2 = await reconnect(key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    expect((await event(cl2, 'resume_ok')).data.status).toBe('started');
    const resumedAt = Date.now();
    // The count starts again at the resume.
    await errorWith(cl2, 'stt_silence_timeout', 10_000);
    expect(Date.now() - resumedAt).toBeGreaterThanOrEqual(1500);
    await event(cl2, 'task_complete', 30_000);

    // Resume while the old connection is still open (the client saw the drop first): the old one is closed.
    const second = await startSession(cl2, {});
    const cl3 = await reconnect(key);
    cl3.send(vt('start', { resume_token: second.data.resume_token }));
    expect((await event(cl3, 'resume_ok')).data.task_id).toBe(second.data.task_id);
    expect((await cl2.closed).code).toBe(4010);
    await stopAndWait(cl3);
    cl3.ws.close();
  }, 60_000);
});
