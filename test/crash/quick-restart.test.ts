/**
 * kill -9 during a live recording and a restart on the same data a moment later, long before
 * the dead process's lease lapses (issue 26, finding 5). The local WAV holds every byte that
 * arrived; the stored segments only what was flushed (nothing yet, with 30 s segments). The restarted node must
 * recover the recording from the newer audio (its local WAV) at once, and not wait for the
 * fleet sweep, which would finish it from the segments and lose the tail. Both a plain live
 * session and a broadcast recording.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, backends } from '../support/app.js';
import { librivoxClips } from '../support/audio.js';
import { until } from '../support/until.js';
import { crashSite, endedTask, liveClient, sendPcmFrames, startKey } from './support.js';

/** Local audio files (`<task>.wav`) left under the realtime temp folder of the data dir. */
function localWavs(dataDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.wav')) out.push(join(dir, e.name));
    }
  };
  walk(dataDir);
  return out;
}

/** About 25 s of read speech (Debian's LibriVox clips) as 16 kHz s16le mono. */
function speechPcm(): Buffer {
  const pcm = (path: string) =>
    execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], { maxBuffer: 64 << 20 });
  return Buffer.concat(librivoxClips().map((c) => pcm(c.path)));
}

const KINDS = ['live session', 'broadcast recording'] as const;

describe.skipIf(librivoxClips().length === 0).each(backends())('a quick restart after kill -9 loses no audio (%s)', (backend) => {
  it.each(KINDS)(
    '%s: recovered from the local WAV with all its audio, not from the shorter segments',
    async (kind) => {
      // A lease far longer than the test's restart gap and its wait: before the fix nothing
      // recovered the recording until the lease lapsed, and then the sweep finished it from the
      // segments. Recovery transcribes the 25 s it holds, which on a loaded 2-core machine (CI
      // runs two test files at once) took longer than the 20 s lease this test once had.
      const site = await crashSite(backend, {
        PARLEY_WS_RECOVER_AFTER_SECONDS: '180',
        PARLEY_WS_DISCONNECT_GRACE_SECONDS: '0',
        PARLEY_WS_SEGMENT_SECONDS: '30',
      });
      try {
        const first = await site.start();
        const key = await startKey(first);
        const cl = await liveClient(site.base, key);
        if (kind === 'broadcast recording') {
          const b = await api(site.base, 'POST', '/api/v1/broadcasts', {
            key,
            body: { transcription_languages: ['en-US'], translation_languages: [] },
          });
          expect(b.status, JSON.stringify(b.body)).toBe(200);
          cl.send({ action: 'start', type: 'broadcast', broadcast_token: b.body.data.token, audio_format: 'pcm' });
        } else cl.send({ action: 'start', transcription_languages: ['en-US'], audio_format: 'pcm', name: kind });
        await until(() => cl.messages.some((m) => m.data?.action === 'session_started' || m.type === 'error'), 30_000, 'session_started');
        const started = cl.messages.find((m) => m.data?.action === 'session_started');
        expect(started, JSON.stringify(cl.messages)).toBeDefined();
        const taskId = started!.data.task_id as string;
        // 24.7 s of speech at 3x real time: under one 30 s segment, so all of it is only on the local disk.
        const pcm = speechPcm();
        await sendPcmFrames(cl.ws, pcm);
        const sentMs = pcm.length / 32;
        // Every byte is on the local disk before the kill (written as it arrives).
        const wav = () => localWavs(site.dataDir).find((f) => f.endsWith(`${taskId}.wav`));
        await until(() => Boolean(wav()) && statSync(wav()!).size - 44 >= pcm.length, 30_000, 'the local WAV to hold all audio');
        first.child.kill('SIGKILL');
        await first.exited;
        cl.ws.terminate();
        await new Promise((r) => setTimeout(r, 1000)); // a quick restart: the dead process's lease has 179 s to go

        const restarted = Date.now();
        await site.start();
        // Well within the lease: the sweep (lease + grace) cannot be what finishes it.
        const t = await endedTask(site.base, key, taskId, 150_000);
        expect(t, JSON.stringify(t)).toMatchObject({ processing_status: 'completed', has_audio: true });
        expect(Math.abs(t.duration_ms - sentMs), `duration ${t.duration_ms} ms of ${sentMs} ms sent`).toBeLessThan(300);
        expect(Date.now() - restarted).toBeLessThan(170_000);
        // The audio went to the task before the local copy was removed.
        const audio = await fetch(`${site.base}/api/v1/tasks/${taskId}/audio/export`, { headers: { 'x-api-key': key } });
        expect(audio.status).toBe(200);
        expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
        await until(() => !wav(), 10_000, 'the recovered local WAV to be removed');
      } finally {
        await site.close();
      }
    },
    300_000,
  );
});
