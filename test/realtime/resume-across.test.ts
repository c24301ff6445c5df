/**
 * Resume on another realtime instance (src/realtime/live): two realtime app instances that
 * share only PostgreSQL, Redis and an S3-protocol server (s3rver), each with its own data
 * folder. A session recorded on one continues on the other after its connection dropped
 * (the holder hands it over), after a drain (service_shutdown), and the resume codes that
 * only the fleet can answer: resume_grace_expired for a recording finalized elsewhere,
 * resume_unavailable when the holder does not answer.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { segmentPrefix } from '../../src/realtime/live/segments.js';
import { LiveRecordingStore, tokenHash } from '../../src/realtime/live/store.js';
import { api, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { startS3Server, type TestS3Server } from '../support/s3-server.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import {
  type Client,
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  liveEngines,
  startLiveApp,
  startSession,
  streamPcm,
  ticketAndKey,
  vt,
} from './support.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);
const GRACE_SECONDS = 6;

describe.skipIf(!redisUrl || !pg || !existsSync(JFK))('resume on another realtime instance (PostgreSQL + Redis + S3)', () => {
  const cleanup: (() => unknown)[] = [];
  let s3: TestS3Server;
  let pgSchema: string;
  let rt1: TestApp;
  let rt2: TestApp;
  const open = async (roles: string, env: Record<string, string> = {}): Promise<TestApp> => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-rt-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const t = await startLiveApp('postgres', {
      // The live diarizer beside the recognizer (multi_speaker), eSpeak NG for in-session TTS.
      engines: await liveEngines([classicDiarizerFactory, espeakFactory]),
      env: {
        PARLEY_ROLES: roles,
        REDIS_URL: redisUrl!,
        PARLEY_WS_DISCONNECT_GRACE_SECONDS: String(GRACE_SECONDS),
        PARLEY_WS_SEGMENT_SECONDS: '1',
        PARLEY_WS_RECOVER_AFTER_SECONDS: '3',
        PARLEY_WS_DRAIN_SECONDS: '20',
        ...s3.env,
        ...env,
      },
      reuse: { dataDir: dir, pgSchema },
    });
    cleanup.push(() => t.close());
    return t;
  };
  beforeAll(async () => {
    s3 = await startS3Server();
    cleanup.push(() => s3.close());
    pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    rt1 = await open('api,realtime');
    rt2 = await open('realtime');
    await new Promise((r) => setTimeout(r, 200)); // subscriptions reach Redis
  }, 120_000);
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  const reconnect = async (t: TestApp, key: string): Promise<Client> => {
    const r = await api(rt1.url, 'POST', '/api/v1/auth/ticket', { key });
    expect(r.status).toBe(200);
    return connect(t, [`ticket.${r.body.data.ticket}`]);
  };
  const task = async (key: string, id: string) =>
    (await api(rt1.url, 'GET', `/api/v1/tasks?status=all&task_ids[]=${id}`, { key })).body.data.tasks[0];

  it('dropped on one instance, resumed on the other: one task, the audio as sent, finals from both sides, one usage row', async () => {
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, {});
    const taskId = started.data.task_id as string;
    const pcm = jfkPcm();
    const cut = 32_000 * 5; // 5 s on the first instance, mid-sentence
    await streamPcm(cl, pcm.subarray(0, cut), 4);
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000); // every chunk was received
    cl.ws.terminate();

    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    const ok = await event(cl2, 'resume_ok', 90_000);
    expect(ok.data).toMatchObject({ task_id: taskId, session_id: started.data.session_id, status: 'started' });
    expect(Math.abs((ok.data.received_ms as number) - 5000)).toBeLessThanOrEqual(100);
    // The audio so far is stored as segments in S3 (no disk is shared).
    expect((await s3.store().list(segmentPrefix(taskId))).length).toBeGreaterThan(0);
    // The recording is held by the second instance now, with the finals made on the first.
    const row = await new LiveRecordingStore(rt1.app.deps.database).get(taskId);
    expect(row).toMatchObject({ state: 'live', instance_id: expect.any(String) });
    const moved = JSON.parse(row!.snapshot) as { sentences: { sid: number }[]; nextSid: number };
    expect(moved.sentences.length).toBeGreaterThan(0);
    expect(moved.nextSid).toBe(moved.sentences.length + 1);
    await streamPcm(cl2, pcm.subarray(cut), 4);
    cl2.send(vt('stop'));
    const done = await cl2.next((m) => m.data?.action === 'task_complete', 150_000);
    expect(done.data.status).toBe('completed');
    const sentMs = pcm.length / 32;
    expect(Math.abs((done.data.duration_ms as number) - sentMs)).toBeLessThanOrEqual(100);
    expect(Math.abs((await task(k.key, taskId)).duration_ms - sentMs)).toBeLessThanOrEqual(100);
    const text = await (
      await fetch(`${rt1.url}/api/v1/tasks/${taskId}/transcript/export?format=txt`, { headers: { 'x-api-key': k.key } })
    ).text();
    // Words before the cut (recognized on the first instance) and after it (on the second).
    expect(text.toLowerCase()).toMatch(/fellow|americans/);
    expect(text.toLowerCase()).toMatch(/country|ask/);
    const usage = (await api(rt1.url, 'GET', '/api/v1/me/usage', { key: k.key })).body.data.filter(
      (u: { task_id: string }) => u.task_id === taskId,
    );
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ type: 'recording', in_progress: false });
    // The segments go once the recording is finalized.
    expect(await s3.store().list(segmentPrefix(taskId))).toEqual([]);
    cl2.ws.close();
  }, 240_000);

  it('multi_channel resumed on the other instance: the channels go on at the recording position', async () => {
    const stereo = new URL('../../../shared/audio/stereo_diarization.wav', import.meta.url).pathname;
    if (!existsSync(stereo)) return;
    const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', stereo, '-f', 's16le', '-ar', '16000', '-ac', '2', 'pipe:1'], {
      maxBuffer: 16 << 20,
    });
    const send = async (c: Client, part: Buffer) => {
      for (let i = 0; i < part.length; i += 6400) {
        c.send(vt('audio', { audio: part.subarray(i, i + 6400).toString('base64') }));
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, {
      recognition_mode: 'multi_channel',
      audio_format: 'pcm',
      channel_mode: 'interleaved',
      channels: [
        { channel_id: 1, language: 'en', label: 'Left' },
        { channel_id: 2, language: 'en' },
      ],
    });
    const cut = 64_000 * 2; // 2 s of 2-channel frames
    await send(cl, pcm.subarray(0, cut));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000);
    cl.ws.terminate();
    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    const ok = await event(cl2, 'resume_ok', 90_000);
    expect(ok.data).toMatchObject({ recognition_mode: 'multi_channel', received_ms: 2000 });
    await send(cl2, pcm.subarray(cut));
    cl2.send(vt('stop'));
    const done = await cl2.next((m) => m.data?.action === 'task_complete', 150_000);
    expect(done.data.status).toBe('completed');
    expect(Math.abs((done.data.duration_ms as number) - pcm.length / 64)).toBeLessThanOrEqual(100);
    // Results recognized on the second instance (after the missed events) carry their channel and
    // positions after the cut: its recognizers started at the recording's position.
    const live = cl2.messages.slice(cl2.messages.indexOf(ok) + 1 + (ok.data.missed_events as number));
    const after = live.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((o) => o.channel_id === 1 || o.channel_id === 2)).toBe(true);
    expect(after.every((o) => o.speaker_id === String(o.channel_id))).toBe(true);
    expect(after.every((o) => (o.end_ms as number) > 2000)).toBe(true);
    cl2.ws.close();
  }, 240_000);

  it('multi_speaker resumed on the other instance: the diarizer there hears the recording so far, speakers go on', async () => {
    const stereo = new URL('../../../shared/audio/stereo_diarization.wav', import.meta.url).pathname;
    if (!existsSync(stereo)) return;
    const mono = execFileSync('ffmpeg', ['-v', 'error', '-i', stereo, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
      maxBuffer: 16 << 20,
    });
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, { recognition_mode: 'multi_speaker' });
    const cut = 32_000 * 2;
    await streamPcm(cl, mono.subarray(0, cut), 4);
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000);
    cl.ws.terminate();
    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    const ok = await event(cl2, 'resume_ok', 90_000);
    expect(ok.data).toMatchObject({ recognition_mode: 'multi_speaker', received_ms: 2000 });
    await streamPcm(cl2, mono.subarray(cut), 4);
    cl2.send(vt('stop'));
    const done = await cl2.next((m) => m.data?.action === 'task_complete', 150_000);
    expect(done.data.status).toBe('completed');
    expect(Math.abs((done.data.duration_ms as number) - mono.length / 32)).toBeLessThanOrEqual(100);
    // Finals recognized on the second instance carry a speaker of the live diarizer there.
    const live = cl2.messages.slice(cl2.messages.indexOf(ok) + 1 + (ok.data.missed_events as number));
    const after = live.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((o) => typeof o.speaker_id === 'string' && o.speaker_id.length > 0)).toBe(true);
    expect(after.every((o) => (o.end_ms as number) > 2000)).toBe(true);
    cl2.ws.close();
  }, 240_000);

  it('a holder whose row was taken lets the recording go (4010); nobody holding it, a sweep finishes it', async () => {
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, {});
    const taskId = started.data.task_id as string;
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000);
    // As if rt1 had stalled past its lease and another process had taken the recording (which then went silent too).
    await rt1.app.deps.database.db
      .updateTable('live_recordings')
      .set({ instance_id: randomUUID(), lease_until: new Date(Date.now() + 1000).toISOString() })
      .where('task_id', '=', taskId)
      .execute();
    cl.send(vt('audio', { audio: Buffer.alloc(64_000).toString('base64') }));
    expect((await cl.closed).code).toBe(4010);
    // rt1 finalized nothing; after the lease and the grace, a sweep (on either instance) finishes it from the segments.
    const store = new LiveRecordingStore(rt1.app.deps.database);
    await until(async () => (await store.get(taskId))?.state === 'grace_expired', 60_000, 'the sweep to finish it');
    const finished = await task(k.key, taskId);
    expect(finished.processing_status).toBe('completed');
    expect(finished.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(finished.duration_ms).toBeLessThanOrEqual(3000);
    expect(await s3.store().list(segmentPrefix(taskId))).toEqual([]);
  }, 120_000);

  it('in-session TTS turned on with set_tts goes on after a resume on the other instance', async () => {
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, { translation_languages: ['es'] });
    cl.send(vt('set_tts', { tts_enabled: true, tts_language: 'es' }));
    expect((await event(cl, 'tts_updated', 10_000)).data).toMatchObject({ tts_enabled: true, tts_language: 'es' });
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000);
    cl.ws.terminate();
    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    await event(cl2, 'resume_ok', 90_000);
    // jfk's first sentence after the resume: its translation is spoken to this client.
    await streamPcm(cl2, Buffer.concat([jfkPcm().subarray(0, 4 * 32_000), Buffer.alloc(2 * 32_000)]), 4);
    const spoken = await cl2.next((m) => m.data?.action === 'tts_ready', 120_000);
    expect(spoken.data).toMatchObject({ language: 'es', format: 'mp3' });
    cl2.send(vt('stop'));
    await cl2.next((m) => m.data?.action === 'task_complete', 150_000);
    cl2.ws.close();
  }, 240_000);

  it('a drain (service_shutdown) on one instance: the client resumes on the other', async () => {
    const rt3 = await open('realtime');
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt3, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, {});
    cl.send(vt('audio', { audio: Buffer.alloc(64_000).toString('base64') }));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health', 10_000);
    const closing = rt3.close();
    expect((await errorWith(cl, 'service_shutdown', 10_000)).data.severity).toBe('warning');
    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    expect((await event(cl2, 'resume_ok', 30_000)).data).toMatchObject({ task_id: started.data.task_id, received_ms: 2000 });
    expect((await cl.closed).code).toBe(4010);
    await closing; // the drained instance stops without waiting for its drain deadline
    cl2.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    cl2.send(vt('stop'));
    const done = await cl2.next((m) => m.data?.action === 'task_complete', 60_000);
    // Silence only: nothing recognized, the audio is kept (3 s).
    expect(done.data).toMatchObject({ task_id: started.data.task_id, duration_ms: 3000 });
    cl2.ws.close();
  }, 120_000);

  it('resume_grace_expired for a recording finalized on the other instance; resume_unavailable when the holder does not answer', async () => {
    const k = await ticketAndKey(rt1);
    const cl = await connect(rt1, [`ticket.${k.ticket}`]);
    const started = await startSession(cl, {});
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    await new Promise((r) => setTimeout(r, 300));
    cl.ws.terminate();
    await new Promise((r) => setTimeout(r, (GRACE_SECONDS + 2) * 1000));
    const cl2 = await reconnect(rt2, k.key);
    cl2.send(vt('start', { resume_token: started.data.resume_token }));
    expect((await errorWith(cl2, 'resume_grace_expired', 10_000)).data.details).toMatchObject({ reason: 'grace_expired' });

    // A recording held by an instance that is alive by its lease but does not answer.
    const store = new LiveRecordingStore(rt1.app.deps.database);
    const token = `${randomUUID()}.${'B'.repeat(32)}`;
    await store.insert({
      task_id: randomUUID(),
      account_id: k.accountId,
      key_id: k.keyId,
      usage_id: randomUUID(),
      token_hash: tokenHash(token),
      state: 'live',
      instance_id: randomUUID(),
      lease_until: new Date(Date.now() + 60_000).toISOString(),
      snapshot: '{}',
    });
    // Asked on an instance that waits 5 s for hand-overs.
    const impatient = await open('realtime', { PARLEY_WS_HANDOVER_TIMEOUT_SECONDS: '5' });
    const cl3 = await reconnect(impatient, k.key);
    cl3.send(vt('start', { resume_token: token }));
    expect((await errorWith(cl3, 'resume_unavailable', 30_000)).data.details).toMatchObject({ reason: 'instance_unreachable' });
    cl2.ws.close();
    cl3.ws.close();
  }, 150_000);
});
