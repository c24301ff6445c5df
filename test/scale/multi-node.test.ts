/**
 * Parley as separate processes, as deployed (docs/deployment.md): PostgreSQL, Redis (bus, rate
 * limits, BullMQ jobs) and an S3-protocol server (s3rver, started here) shared by an api node,
 * two realtime nodes and worker nodes, each `node dist/main.mjs`, the bundle `npm start` runs with PARLEY_ROLES
 * and a data folder of its own (so nothing can go through a shared disk):
 * - an import uploaded to the api node is transcribed by the worker node, its audio served by
 *   the api node from S3 with ranged reads (206);
 * - a live session on realtime node 1 is watched by a floating-subtitle viewer on realtime
 *   node 2 (the events cross Redis);
 * - a worker killed (SIGKILL) mid-import: another worker finishes the import, exactly once;
 * - a deploy drains realtime node 1 (SIGTERM): its live session is resumed on node 2 (one
 *   task, the audio as sent), and broadcast viewers connected through the api node stay
 *   connected while the host starts the broadcast again on node 2;
 * - realtime node 2 killed (SIGKILL) mid-recording: node 3 finishes the task from the audio
 *   segments in S3, charged once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openViewer } from '../broadcasts/support.js';
import { upload, watchSse } from '../imports/support.js';
import { connect, errorWith, event, jfkPcm, startSession, streamPcm, vt } from '../realtime/support.js';
import { enableShare, exchange, openSubtitles } from '../subtitles/support.js';
import { api, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { startS3Server } from '../support/s3-server.js';
import { firstStartKey, freePort, type ServerProcess, startServer } from '../support/server.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { startReceiver } from '../webhooks/receiver.js';

const redisUrl = testRedisUrl();
const pg = process.env.DATABASE_URL;
// About 66 s of real speech: long enough to be caught while transcribing.
const long = haveSharedAudio() ? convert(JFK, 'mp3', ['-filter_complex', 'aloop=loop=5:size=2e6', '-ar', '16000', '-ac', '1']) : null;
const short = haveSharedAudio() ? convert(JFK, 'mp3') : null;

describe.skipIf(!redisUrl || !pg || !long)('three roles as separate processes (PostgreSQL + Redis + S3)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('api, realtime and worker nodes share only the services: imports, live viewers across nodes, a killed worker', async () => {
    const s3 = await startS3Server();
    cleanup.push(() => s3.close());
    const schema = await createPgSchema();
    cleanup.push(() => dropPgSchema(schema));
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const dbUrl = new URL(pg!);
    dbUrl.searchParams.set('options', `-c search_path=${schema}`);
    const shared = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: redisUrl!,
      PARLEY_JOB_QUEUE_PREFIX: `parley-test:${randomUUID()}`,
      PARLEY_JOB_LEASE_MS: '6000',
      PARLEY_WEBHOOK_ALLOW_PRIVATE: '1',
      // Live recordings: 1 s audio segments; a node silent for 2 s is dead, its sessions wait 3 s for a resume.
      PARLEY_WS_SEGMENT_SECONDS: '1',
      PARLEY_WS_RECOVER_AFTER_SECONDS: '2',
      PARLEY_WS_DISCONNECT_GRACE_SECONDS: '3',
      // A drained node waits for its sessions to resume elsewhere (or stop).
      PARLEY_WS_DRAIN_SECONDS: '90',
      PARLEY_SHUTDOWN_GRACE_MS: '100000',
      ...s3.env,
    };
    const node = async (roles: string): Promise<ServerProcess & { base: string }> => {
      const dir = mkdtempSync(join(tmpdir(), `parley-${roles}-`));
      const port = await freePort();
      // Generous start-up: several processes load engines at once on a loaded machine.
      const s = startServer({ ...shared, PARLEY_ROLES: roles, PORT: String(port), PARLEY_DATA_DIR: dir }, 180_000);
      cleanup.push(async () => {
        if (s.child.exitCode === null) s.child.kill('SIGTERM');
        await s.exited;
        rmSync(dir, { recursive: true, force: true });
      });
      return Object.assign(s, { base: `http://127.0.0.1:${port}` });
    };
    // The api node first: its first start creates the account whose key it prints.
    const apiNode = await node('api');
    await apiNode.ready;
    // The first-start key is printed once the node listens, just after it answers.
    await until(() => /svc_[A-Za-z0-9]{32}/.test(apiNode.output()), 20_000, 'the first-start key');
    const key = firstStartKey(apiNode);
    const [rt1, rt2, rt3, worker1] = await Promise.all([node('realtime'), node('realtime'), node('realtime'), node('worker')]);
    await Promise.all([rt1.ready, rt2.ready, rt3.ready, worker1.ready]);
    const newTicket = async () => (await api(apiNode.base, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const on = (n: { base: string }) => ({ url: n.base }) as TestApp;

    // 1. An import uploaded to the api node, transcribed by the worker node.
    const first = await upload(apiNode.base, key, { file: { path: short! } });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const progress = await watchSse(`${apiNode.base}/api/v1/sse/imports/${first.body.data.import_id}/progress`, { 'x-api-key': key }).done;
    expect(progress.at(-1)?.event).toBe('completed');
    const imp = (await api(apiNode.base, 'GET', `/api/v1/imports/${first.body.data.import_id}`, { key })).body.data;
    const taskId = imp.task_id as string;
    const transcript = async (id: string) =>
      (await fetch(`${apiNode.base}/api/v1/tasks/${id}/transcript/export?format=txt`, { headers: { 'x-api-key': key } })).text();
    expect((await transcript(taskId)).toLowerCase()).toContain('country');
    // Its audio is in S3 (no node shares a disk): the api node answers a range with 206.
    const ranged = await fetch(`${apiNode.base}/api/v1/sse/audio/${taskId}`, { headers: { 'x-api-key': key, range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(100);

    // 2. A live session on realtime node 1, a floating-subtitle viewer on realtime node 2.
    const ticket = (await api(apiNode.base, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const host = await connect({ url: rt1.base } as never, [`ticket.${ticket}`]);
    const started = await startSession(host, {});
    const liveId = started.data.task_id as string;
    const secret = (await enableShare(apiNode.base, key, liveId)).body.data.share_secret as string;
    const token = (await exchange(apiNode.base, liveId, { share_secret: secret })).body.data.token as string;
    const viewer = await openSubtitles(rt2.base, liveId, token);
    expect(viewer.status, JSON.stringify(viewer.body)).toBe(200);
    await streamPcm(host, jfkPcm(), 4);
    const final = await viewer.next((e) => e.event === 'origin' && e.data.is_final === true, 30_000);
    expect(final.data.text.length).toBeGreaterThan(3);
    host.send(vt('stop'));
    viewer.close();
    host.ws.close();

    // 3. The worker is killed while transcribing; a second worker finishes the import once.
    const second = await upload(apiNode.base, key, { file: { path: long! }, fields: { callback_url: rx.url } });
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    const id = second.body.data.import_id as string;
    const watch = watchSse(`${apiNode.base}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key });
    await until(() => watch.events.some((e) => e.data.stage === 'transcribing'), 60_000, 'transcribing');
    worker1.child.kill('SIGKILL');
    await worker1.exited;
    const worker2 = await node('worker');
    await worker2.ready;
    await until(
      async () => ['completed', 'failed'].includes((await api(apiNode.base, 'GET', `/api/v1/imports/${id}`, { key })).body.data.status),
      120_000,
      'import to end',
    );
    const end = (await api(apiNode.base, 'GET', `/api/v1/imports/${id}`, { key })).body.data;
    expect(end.status, JSON.stringify(end)).toBe('completed');
    await until(() => rx.received.filter((r) => r.json?.event === 'import.completed').length >= 1, 20_000, 'import.completed');
    await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive by now
    const events = rx.received.map((r) => r.json.event);
    expect(events.filter((e) => e === 'import.completed')).toHaveLength(1);
    expect(events.filter((e) => e === 'recording.completed')).toHaveLength(1);
    // The transcript of the whole recording, once: the loop of JFK's speech, not doubled.
    // (PocketSphinx on this looped MP3 is rough: "can do", twice per loop, is counted, and the
    // sentences reach past 50 s of the 66 s.)
    const whole = (await transcript(end.task_id)).toLowerCase();
    const canDo = whole.split('can do').length - 1;
    expect(canDo, whole).toBeGreaterThanOrEqual(3);
    expect(canDo, whole).toBeLessThanOrEqual(12);
    const starts = [...whole.matchAll(/\[(\d\d):(\d\d):(\d\d)\]/g)].map((m) => Number(m[2]) * 60 + Number(m[3]));
    expect(Math.max(...starts), whole).toBeGreaterThanOrEqual(50);
    const usage = (await api(apiNode.base, 'GET', '/api/v1/me/usage', { key })).body.data as { type: string }[];
    expect(usage.filter((u) => u.type === 'import')).toHaveLength(2);

    // 4. A deploy drains realtime node 1. A broadcast hosted there, watched through the api node...
    const channel = (
      await api(apiNode.base, 'POST', '/api/v1/broadcasts', {
        key,
        body: { transcription_languages: ['en'], translation_languages: ['es'] },
      })
    ).body.data as { token: string };
    const caster = await connect(on(rt1) as never, [`ticket.${await newTicket()}`]);
    caster.send(vt('start', { type: 'broadcast', broadcast_token: channel.token, audio_format: 'pcm' }));
    expect((await caster.next((m) => m.data?.action === 'session_started' || m.type === 'error', 20_000)).data.action).toBe(
      'session_started',
    );
    // On air (hosted on node 1): the audience joins through the api node.
    const audience = await openViewer(on(apiNode), channel.token);
    expect(audience.status).toBe(200);
    await audience.next((e) => e.event === 'connected', 10_000);
    // ...and a live session there, 4 s into jfk's speech.
    const pcm = jfkPcm();
    const cut = 32_000 * 4;
    const talker = await connect(on(rt1) as never, [`ticket.${await newTicket()}`]);
    const talk = await startSession(talker, {});
    await streamPcm(talker, pcm.subarray(0, cut), 4);
    talker.send({ type: 'health', data: {} });
    await talker.next((m) => m.type === 'health', 10_000);
    rt1.child.kill('SIGTERM');
    await errorWith(talker, 'service_shutdown', 10_000);
    await errorWith(caster, 'service_shutdown', 10_000);
    // The viewers stay connected: the broadcast waits for its host.
    await audience.next((e) => e.event === 'host_disconnected', 15_000);
    // The session resumes on node 2 (a new ticket) and goes on to the end of the speech.
    const talker2 = await connect(on(rt2) as never, [`ticket.${await newTicket()}`]);
    talker2.send(vt('start', { resume_token: talk.data.resume_token }));
    const resumed = await event(talker2, 'resume_ok', 90_000);
    expect(resumed.data.task_id).toBe(talk.data.task_id);
    expect(Math.abs((resumed.data.received_ms as number) - 4000)).toBeLessThanOrEqual(100);
    await streamPcm(talker2, pcm.subarray(cut), 4);
    talker2.send(vt('stop'));
    const talked = await talker2.next((m) => m.data?.action === 'task_complete', 150_000);
    expect(talked.data.status).toBe('completed');
    expect(Math.abs((talked.data.duration_ms as number) - pcm.length / 32)).toBeLessThanOrEqual(100);
    // The host starts the broadcast again on node 2: the same viewers get its captions.
    caster.ws.close();
    const caster2 = await connect(on(rt2) as never, [`ticket.${await newTicket()}`]);
    caster2.send(vt('start', { type: 'broadcast', broadcast_token: channel.token, audio_format: 'pcm' }));
    expect((await caster2.next((m) => m.data?.action === 'session_started' || m.type === 'error', 20_000)).data.action).toBe(
      'session_started',
    );
    await audience.next((e) => e.event === 'host_reconnected', 20_000);
    await streamPcm(caster2, pcm, 4);
    await audience.next((e) => e.event === 'origin' && e.data.is_final === true, 60_000);
    caster2.send(vt('stop'));
    await audience.next((e) => e.event === 'ended', 60_000);
    audience.close();
    talker2.ws.close();
    caster2.ws.close();
    await rt1.exited;

    // 5. Realtime node 2 dies (SIGKILL) mid-recording: node 3 finishes the task from the segments in S3.
    const victim = await connect(on(rt2) as never, [`ticket.${await newTicket()}`]);
    const lost = await startSession(victim, {});
    await streamPcm(victim, pcm.subarray(0, cut), 4);
    victim.send({ type: 'health', data: {} });
    await victim.next((m) => m.type === 'health', 10_000);
    // The whole seconds' segments are stored before the kill: under a loaded machine an upload
    // can take longer than the wait below (a CI pre-check saw 1,800 ms recovered of 4,000 sent).
    const segments = s3.store();
    await until(
      async () => (await segments.list(`live/${lost.data.task_id}/`)).filter((k) => k.endsWith('.pcm')).length >= 3,
      15_000,
      'three 1 s segments in S3',
    ).catch(() => undefined); // the assertions below say what was recovered if they never came
    await new Promise((r) => setTimeout(r, 1500)); // the last second's segment is stored
    rt2.child.kill('SIGKILL');
    await rt2.exited;
    const lostTask = async () =>
      (await api(apiNode.base, 'GET', `/api/v1/tasks?status=all&task_ids[]=${lost.data.task_id}`, { key })).body.data.tasks[0];
    await until(
      async () => ['completed', 'failed'].includes((await lostTask())?.processing_status),
      90_000,
      'the orphaned recording to end',
    );
    const finished = await lostTask();
    expect(finished.processing_status).toBe('completed');
    // The audio up to the last segment (1 s segments: at most the last second is lost).
    expect(finished.duration_ms).toBeGreaterThanOrEqual(3000);
    expect(finished.duration_ms).toBeLessThanOrEqual(4000);
    const charged = (await api(apiNode.base, 'GET', '/api/v1/me/usage', { key })).body.data.filter(
      (u: { task_id: string }) => u.task_id === lost.data.task_id,
    );
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ type: 'recording', in_progress: false });
  }, 600_000);
});
