/**
 * kill -9 of the server during a live session: while recording, and while finalizing (after
 * `stop`: the audio being stored, the transcript being written, the summary made). After a
 * restart on the same data the recording is recovered (recover.ts: audio stored, transcript
 * rebuilt by the reprocessing job) with the summary the session asked for at start; it
 * completes once with its transcript, and its minutes are not charged again (one usage row).
 */
import { describe, expect, it } from 'vitest';
import { jfkPcm } from '../realtime/support.js';
import { api, backends } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { until } from '../support/until.js';
import { crashSite, endedTask, killAt, liveClient, sendPcmFrames, startKey, usage } from './support.js';

const CASES = ['recording', 'live.uploading', 'live.processing', 'live.summarized'];

describe.skipIf(!haveSharedAudio()).each(backends())('live sessions killed with SIGKILL (%s)', (backend) => {
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
        await sendPcmFrames(cl.ws, pcm);
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
        const t = await endedTask(site.base, key, taskId, 120_000);
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
