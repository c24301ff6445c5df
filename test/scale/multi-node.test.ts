/**
 * Parley as separate processes, as deployed (docs/deployment.md): PostgreSQL, Redis (bus, rate
 * limits, BullMQ jobs) and an S3-protocol server (s3rver, started here) shared by an api node,
 * two realtime nodes and worker nodes, each `node --import tsx src/main.ts` with PARLEY_ROLES
 * and a data folder of its own (so nothing can go through a shared disk):
 * - an import uploaded to the api node is transcribed by the worker node, its audio served by
 *   the api node from S3 with ranged reads (206);
 * - a live session on realtime node 1 is watched by a floating-subtitle viewer on realtime
 *   node 2 (the events cross Redis);
 * - a worker killed (SIGKILL) mid-import: another worker finishes the import, exactly once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { upload, watchSse } from '../imports/support.js';
import { connect, jfkPcm, startSession, streamPcm, vt } from '../realtime/support.js';
import { enableShare, exchange, openSubtitles } from '../subtitles/support.js';
import { api, createPgSchema, dropPgSchema } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { startS3Server } from '../support/s3-server.js';
import { firstStartKey, freePort, type ServerProcess, startServer } from '../support/server.js';
import { testRedisUrl } from '../support/services.js';
import { startReceiver, until } from '../webhooks/receiver.js';

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
    const key = firstStartKey(apiNode);
    const [rt1, rt2, worker1] = await Promise.all([node('realtime'), node('realtime'), node('worker')]);
    await Promise.all([rt1.ready, rt2.ready, worker1.ready]);

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
    const countries = (await transcript(end.task_id)).toLowerCase().split('country').length - 1;
    expect(countries).toBeGreaterThanOrEqual(3);
    expect(countries).toBeLessThanOrEqual(12);
    const usage = (await api(apiNode.base, 'GET', '/api/v1/me/usage', { key })).body.data as { type: string }[];
    expect(usage.filter((u) => u.type === 'import')).toHaveLength(2);
  }, 300_000);
});
