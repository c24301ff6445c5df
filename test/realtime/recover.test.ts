/**
 * A kill -9 of the server in the middle of a live recording, then a restart on the same data:
 * the recording is recovered from the audio kept on disk (stored as M4A, transcript rebuilt by
 * the reprocessing job), its usage row ends, and no temporary file is left. The server runs
 * as a real child process (the README's start command), so the kill is a real SIGKILL.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api } from '../support/app.js';
import { firstStartKey, localServerEnv, startServer } from '../support/server.js';
import { until } from '../support/until.js';
import { JFK, jfkPcm } from './support.js';

describe.skipIf(!existsSync(JFK))('live recording across a kill -9 and a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-rt-restart-'));
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('recovers the recording: audio stored, transcript rebuilt, usage ended, temp files gone', async () => {
    const { port, base, env } = await localServerEnv(dataDir, { PARLEY_WS_RECOVER_AFTER_SECONDS: '1' });
    const first = startServer(env);
    cleanup.push(() => first.child.kill('SIGKILL'));
    await first.ready;
    const key = firstStartKey(first);

    const ticket = (await api(base, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, [`ticket.${ticket}`]);
    const messages: { type: string; data: Record<string, unknown> }[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    ws.on('error', () => {});
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } }));
    await until(() => messages.some((m) => m.data.action === 'session_started'), 20_000, 'session_started');
    const taskId = messages.find((m) => m.data.action === 'session_started')!.data.task_id as string;
    const pcm = jfkPcm().subarray(0, 32_000 * 4);
    for (let i = 0; i < pcm.length; i += 3200) {
      ws.send(
        JSON.stringify({ type: 'voice-translation', data: { action: 'audio', audio: pcm.subarray(i, i + 3200).toString('base64') } }),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
    ws.send(JSON.stringify({ type: 'health', data: {} }));
    await until(() => messages.some((m) => m.type === 'health'), 10_000, 'health'); // every chunk was received
    first.child.kill('SIGKILL');
    await first.exited;
    const before = (await api(base, 'GET', '/api/v1/tasks?status=all', { key }).catch(() => null))?.status;
    expect(before).toBeUndefined(); // the server is gone

    await new Promise((r) => setTimeout(r, 1500)); // its heartbeat is now stale
    const second = startServer(env);
    cleanup.push(() => second.child.kill('SIGTERM'));
    await second.ready;
    const task = async () => (await api(base, 'GET', `/api/v1/tasks?status=all&task_ids[]=${taskId}`, { key })).body.data.tasks[0];
    await until(async () => ['completed', 'failed'].includes((await task())?.processing_status), 120_000, 'the recovered task to end');
    expect(await task()).toMatchObject({ processing_status: 'completed', duration_ms: 4000, type_source: 'realtime' });
    const audio = await fetch(`${base}/api/v1/sse/audio/${taskId}`, { headers: { 'x-api-key': key } });
    expect(audio.status).toBe(200);
    const history = await (await fetch(`${base}/api/v1/sse/history/transcribe/${taskId}`, { headers: { 'x-api-key': key } })).text();
    expect(history).toContain('event: init_sentence');
    const usage = (await api(base, 'GET', '/api/v1/me/usage', { key })).body.data.find((u: { task_id: string }) => u.task_id === taskId);
    expect(usage).toMatchObject({ type: 'recording', in_progress: false });
    const tmp = join(dataDir, 'tmp', 'realtime');
    const left = existsSync(tmp) ? readdirSync(tmp, { recursive: true }).map(String) : [];
    expect(left.filter((f) => f.endsWith('.wav') || f.endsWith('.json'))).toEqual([]);
  }, 240_000);
});
