/**
 * Roles split as in a scale-out deployment: two app instances that share only PostgreSQL and
 * Redis (each with its own Redis connections, so nothing passes in memory), the REST API
 * (tickets, tasks) in one, live sessions in the other. A ticket from the API works on the realtime app, and
 * POST /tasks/{id}/force-fail on the API ends the live session held by the other process
 * (over the Redis bus) before the task fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { connect, errorWith, event, startLiveApp, startSession, vt } from './support.js';

const redisUrl = testRedisUrl();
const pg = Boolean(process.env.DATABASE_URL);

describe.skipIf(!redisUrl || !pg)('api and realtime roles in two app instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('a ticket from the api app opens a session on the realtime app; force-fail there ends it', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-api-')), mkdtempSync(join(tmpdir(), 'parley-rt-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const open = (dir: string, roles: string): Promise<TestApp> =>
      startLiveApp('postgres', { env: { PARLEY_ROLES: roles, REDIS_URL: redisUrl! }, reuse: { dataDir: dir, pgSchema } });
    const apiApp = await open(dirs[0]!, 'api,worker');
    cleanup.push(() => apiApp.close());
    const rtApp = await open(dirs[1]!, 'realtime');
    cleanup.push(() => rtApp.close());
    await new Promise((r) => setTimeout(r, 200)); // subscriptions reach Redis

    const created = await apiApp.app.deps.keys.createKey({});
    const key = created.api_key;
    await apiApp.app.deps.billing.grantCredit({ accountId: created.account_id, points: 50, pool: 'account' });
    const ticket = (await api(apiApp.url, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket as string;
    const cl = await connect(rtApp, [`ticket.${ticket}`]);
    const started = await startSession(cl, {});
    const taskId = started.data.task_id as string;
    cl.send(vt('audio', { audio: Buffer.alloc(32_000).toString('base64') }));
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health');

    const r = await api(apiApp.url, 'POST', `/api/v1/tasks/${taskId}/force-fail`, { key });
    expect(r.status).toBe(200);
    expect((await errorWith(cl, 'session_force_ended', 10_000)).data.details.task_id).toBe(taskId);
    expect((await event(cl, 'task_complete', 20_000)).data).toMatchObject({ task_id: taskId, status: 'failed', duration_ms: 1000 });
    const task = (await api(apiApp.url, 'GET', `/api/v1/tasks?status=all&task_ids[]=${taskId}`, { key })).body.data.tasks[0];
    expect(task).toMatchObject({ processing_status: 'failed' });
    cl.ws.close();
  }, 60_000);
});
