import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { tasksOf } from '../../src/tasks/module.js';
import { backends, type TestApp } from '../support/app.js';
import { connect, type Msg, startLiveApp, ticketFor } from './support.js';

const JFK = new URL('../../../shared/audio/jfk.flac', import.meta.url).pathname;
const haveAudio = existsSync(JFK);
if (!haveAudio) console.warn(`skipped: ${JFK} is absent (../shared/audio holds the test recordings)`);

describe.skipIf(!haveAudio).each(backends())('live recording end to end (%s, jfk.flac at 2x real time)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
    const e = await pocketsphinxStreamingFactory.create(ctx as never);
    if ('unavailable' in e) throw new Error(`PocketSphinx unavailable: ${e.unavailable}`);
    t = await startLiveApp(backend, { engines: EngineRegistry.fromEngines([e as AnyEngine]) });
  });
  afterAll(() => t?.close());

  it('streams base64 PCM, gets interims before a final with "country", and completes the task', async () => {
    const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
      maxBuffer: 64 << 20,
    });
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'], name: 'JFK' } });
    const started = await cl.next((m) => m.data?.action === 'session_started' || m.type === 'error', 10_000);
    expect(started.data).toMatchObject({ action: 'session_started', recording_type: 'transcribe', recognition_mode: 'single' });
    const chunk = 3200; // 100 ms
    for (let i = 0; i < pcm.length; i += chunk) {
      cl.send({ type: 'voice-translation', data: { action: 'audio', audio: pcm.subarray(i, i + chunk).toString('base64') } });
      await new Promise((r) => setTimeout(r, 50)); // 2x real time
    }
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    const done = await cl.next((m) => m.data?.action === 'task_complete', 60_000);
    expect(done.data).toMatchObject({ task_id: started.data.task_id, status: 'completed' });

    const results = cl.messages.filter((m: Msg) => m.data?.action === 'result').map((m) => m.data.origin);
    const firstFinal = results.findIndex((r) => r.is_final);
    expect(firstFinal).toBeGreaterThan(0);
    expect(results.slice(0, firstFinal).some((r) => !r.is_final && r.sid === results[firstFinal].sid)).toBe(true);
    const finals = results.filter((r) => r.is_final).map((r) => r.text.toLowerCase());
    expect(finals.join(' ')).toContain('country');
    expect(results[0].start_time).toMatch(/^\d\d:\d\d$/);
    expect(cl.messages.some((m) => m.data?.action === 'status' && m.data.status === 'ended')).toBe(true);

    const task = await tasksOf(t.app.deps).store.getTask(started.data.task_id);
    expect(task).toMatchObject({ processingStatus: 'completed', title: 'JFK' });
    expect(task?.audioKey).toBeTruthy();
    cl.ws.close();
  }, 90_000);

  it('stop with no audio fails the task with failure source no_audio', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    const started = await cl.next((m) => m.data?.action === 'session_started', 10_000);
    cl.send({ type: 'voice-translation', data: { action: 'pause' } });
    cl.send({ type: 'voice-translation', data: { action: 'pause' } });
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({ error_code: 'session_already_paused', severity: 'warning' });
    cl.send({ type: 'voice-translation', data: { action: 'resume' } });
    cl.send({ type: 'voice-translation', data: { action: 'resume' } });
    expect((await cl.next((m) => m.type === 'error')).data.error_code).toBe('session_not_paused');
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    const done = await cl.next((m) => m.data?.action === 'task_complete', 20_000);
    expect(done.data.status).toBe('failed');
    const task = await tasksOf(t.app.deps).store.getTask(started.data.task_id);
    expect(task?.processingStatus).toBe('failed');
    // The same connection can start again after the previous recording ended.
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    expect((await cl.next((m) => m.data?.action === 'session_started' || m.type === 'error', 10_000)).data.action).toBe('session_started');
    cl.ws.close();
  }, 60_000);

  it('webm audio (binary frames) is decoded as it arrives', async () => {
    const webm = execFileSync('ffmpeg', ['-v', 'error', '-t', '4', '-i', JFK, '-c:a', 'libopus', '-f', 'webm', 'pipe:1'], {
      maxBuffer: 16 << 20,
    });
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.send({
      type: 'voice-translation',
      data: { action: 'start', type: 'transcribe', transcription_languages: ['en'], audio_format: 'webm' },
    });
    const started = await cl.next((m) => m.data?.action === 'session_started', 10_000);
    for (let i = 0; i < webm.length; i += 4000) cl.ws.send(webm.subarray(i, i + 4000)); // binary frames (extension)
    await new Promise((r) => setTimeout(r, 500));
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    const done = await cl.next((m) => m.data?.action === 'task_complete', 30_000);
    expect(done.data).toMatchObject({ task_id: started.data.task_id, status: 'completed' });
    expect(done.data.duration_ms).toBeGreaterThan(3500);
    cl.ws.close();
  }, 60_000);
});
