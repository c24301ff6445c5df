/**
 * kill -9 of the server during a live session: while recording, and while finalizing (after
 * `stop`: the audio being stored, the transcript being written, the summary made). After a
 * restart on the same data the recording is recovered (recover.ts: audio stored, transcript
 * rebuilt by the reprocessing job) with the summary the session asked for at start; it
 * completes once with its transcript, and its minutes are not charged again (one usage row).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { jfkPcm } from '../realtime/support.js';
import { api, backends } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { type Receiver, startReceiver, until } from '../webhooks/receiver.js';
import { crashSite, killAt, startKey, usage } from './support.js';

// biome-ignore lint/suspicious/noExplicitAny: messages are read freely
type Msg = { type: string; data: any };

async function liveClient(base: string, key: string) {
  const t = (await api(base, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, [`ticket.${t}`]);
  const messages: Msg[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as Msg));
  ws.on('error', () => {}); // the server is killed under it
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (data: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'voice-translation', data }));
  return { ws, messages, send };
}

const CASES = ['recording', 'live.uploading', 'live.processing', 'live.summarized'];

describe.skipIf(!haveSharedAudio()).each(backends())('live sessions killed with SIGKILL (%s)', (backend) => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx?.close());

  it.each(CASES)(
    'killed at %s: recovered with its summary, completed once, minutes charged once',
    async (point) => {
      const site = await crashSite(backend);
      try {
        const first = await site.start(point === 'recording' ? undefined : point);
        const key = await startKey(first);
        const cl = await liveClient(site.base, key);
        cl.send({
          action: 'start',
          transcription_languages: ['en-US'],
          audio_format: 'pcm',
          summary_template: 'general-summary',
          name: point,
        });
        await until(() => cl.messages.some((m) => m.data?.action === 'session_started'), 30_000, 'session_started');
        const taskId = cl.messages.find((m) => m.data?.action === 'session_started')!.data.task_id as string;
        const pcm = jfkPcm();
        for (let i = 0; i < pcm.length; i += 6400) {
          cl.ws.send(pcm.subarray(i, i + 6400));
          await new Promise((r) => setTimeout(r, 100)); // 2x real time
        }
        await until(() => cl.messages.some((m) => m.data?.action === 'result' && m.data.origin?.is_final), 30_000, 'a final');
        if (point === 'recording') {
          first.child.kill('SIGKILL');
          await first.exited;
        } else {
          cl.send({ action: 'stop' });
          await killAt(first, point);
        }
        cl.ws.terminate();
        await new Promise((r) => setTimeout(r, 1500)); // the dead process's heartbeat goes stale (PARLEY_WS_RECOVER_AFTER_SECONDS=1)

        await site.start();
        const task = async () => (await api(site.base, 'GET', `/api/v1/tasks/${taskId}`, { key })).body.data;
        await until(async () => ['completed', 'failed'].includes((await task()).processing_status), 120_000, 'the recovered task to end');
        const t = await task();
        expect(t, JSON.stringify(t)).toMatchObject({
          processing_status: 'completed',
          has_audio: true,
          summary_template: 'general-summary',
        });
        expect(Math.abs(t.duration_ms - pcm.length / 32)).toBeLessThan(700);
        const text = (await api(site.base, 'GET', `/api/v1/tasks/${taskId}/transcript/export?format=txt`, { key })).body as string;
        expect(String(text).toLowerCase()).toContain('country');
        const rows = (await usage(site.base, key)).filter((u) => u.task_id === taskId);
        expect(rows.filter((u) => u.type === 'recording')).toHaveLength(1);
        expect(rows.filter((u) => u.type === 'summary').length).toBeLessThanOrEqual(1);
        expect(rows.find((u) => u.type === 'recording')!.points).toBeGreaterThan(0);
      } finally {
        await site.close();
      }
    },
    300_000,
  );
});
