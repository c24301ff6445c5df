import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskListItem } from '../../src/tasks/format.js';
import { SESSION_FORCE_END_TOPIC, type TaskReprocessor, TaskService } from '../../src/tasks/service.js';
import { api, backends } from '../support/app.js';
import { outboxFor } from '../support/outbox.js';
import { pendingImport, seedTask, startTaskApp, type TaskTestApp } from './harness.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe.each(backends())('tasks (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  describe('GET /api/v1/tasks', () => {
    let completedOld: string;
    let completedNew: string;
    let pinned: string;
    let active: string;
    let failed: string;
    let foreign: string;
    beforeAll(async () => {
      const base = Date.parse('2026-01-01T00:00:00Z');
      completedOld = (await seedTask(t, { createdAt: new Date(base) })).taskId;
      completedNew = (await seedTask(t, { createdAt: new Date(base + 60_000) })).taskId;
      pinned = (await seedTask(t, { createdAt: new Date(base - 60_000) })).taskId;
      await t.mod.store.setPinned((await t.mod.store.getTask(pinned))!.accountId, [pinned], true);
      active = (await seedTask(t, { status: 'recording', createdAt: new Date(base + 120_000) })).taskId;
      failed = (await seedTask(t, { status: 'failed', createdAt: new Date(base + 180_000) })).taskId;
      foreign = (await seedTask(t, { accountId: t.principalB.accountId, keyId: t.principalB.keyId })).taskId;
    });

    it('lists completed tasks by default, pinned first then newest, in the Task shape', async () => {
      const r = await api(t.url, 'GET', '/api/v1/tasks', { key: t.keyA });
      expect(r.status).toBe(200);
      const ids = r.body.data.tasks.map((x: { task_id: string }) => x.task_id);
      expect(ids.slice(0, 3)).toEqual([pinned, completedNew, completedOld]);
      expect(ids).not.toContain(active);
      expect(ids).not.toContain(failed);
      expect(r.body.data.tasks[1]).toEqual({
        task_id: completedNew,
        title: 'Meeting',
        type: 'transcribe',
        type_source: 'realtime',
        duration_ms: 3000,
        duration_formatted: '00:03',
        transcription_languages: ['en-US'],
        translation_languages: null,
        created_at: '2026-01-01T00:01:00.000Z',
        processing_status: 'completed',
        is_pinned: false,
        is_unread: true,
        summary_mode: null,
        summary_template: null,
        summary_language: null,
      });
    });

    it('status=active lists in-progress tasks; status=all lists every state; other values are 422', async () => {
      const act = await api(t.url, 'GET', '/api/v1/tasks?status=active', { key: t.keyA });
      expect(act.body.data.tasks.map((x: { task_id: string }) => x.task_id)).toEqual([active]);
      const all = await api(t.url, 'GET', '/api/v1/tasks?status=all', { key: t.keyA });
      const ids = all.body.data.tasks.map((x: { task_id: string }) => x.task_id);
      expect(ids).toEqual(expect.arrayContaining([active, failed, completedNew, pinned]));
      expect(ids).not.toContain(foreign);
      const bad = await api(t.url, 'GET', '/api/v1/tasks?status=done', { key: t.keyA });
      expect(bad.status).toBe(422);
      expect(bad.body.data.error_code).toBe('validation_failed');
    });

    it('task_ids[] returns only own listed tasks, skips unknown and foreign ids, and status still applies', async () => {
      const q = [completedNew, active, foreign, randomUUID()].map((id) => `task_ids[]=${id}`).join('&');
      const r = await api(t.url, 'GET', `/api/v1/tasks?${q}`, { key: t.keyA });
      expect(r.status).toBe(200);
      expect(r.body.data.tasks.map((x: { task_id: string }) => x.task_id)).toEqual([completedNew]);
      const all = await api(t.url, 'GET', `/api/v1/tasks?status=all&${q}`, { key: t.keyA });
      expect(all.body.data.tasks.map((x: { task_id: string }) => x.task_id).sort()).toEqual([completedNew, active].sort());
      const single = await api(t.url, 'GET', `/api/v1/tasks?task_ids[]=${completedOld}`, { key: t.keyA });
      expect(single.body.data.tasks.map((x: { task_id: string }) => x.task_id)).toEqual([completedOld]);
      // B sees its own task only through its own key.
      const b = await api(t.url, 'GET', `/api/v1/tasks?${q}`, { key: t.keyB });
      expect(b.body.data.tasks.map((x: { task_id: string }) => x.task_id)).toEqual([foreign]);
    });

    it('more than 100 ids, a non-UUID, or task_ids without [] is 422 validation_failed', async () => {
      const many = Array.from({ length: 101 }, () => `task_ids[]=${randomUUID()}`).join('&');
      for (const q of [many, 'task_ids[]=nope', `task_ids=${completedNew}`, `task_ids[0]=${completedNew}`, 'task_ids[]=']) {
        const r = await api(t.url, 'GET', `/api/v1/tasks?${q}`, { key: t.keyA });
        expect(r.status, q.slice(0, 40)).toBe(422);
        expect(r.body.data.error_code).toBe('validation_failed');
      }
      const hundred = Array.from({ length: 100 }, () => `task_ids[]=${randomUUID()}`).join('&');
      expect((await api(t.url, 'GET', `/api/v1/tasks?${hundred}`, { key: t.keyA })).status).toBe(200);
    });

    it('tasks belong to the account: another key of the same account sees them', async () => {
      const second = await t.app.deps.keys.createKey({ accountId: t.principalA.accountId, name: 'A2' });
      const r = await api(t.url, 'GET', `/api/v1/tasks?task_ids[]=${completedNew}`, { key: second.api_key });
      expect(r.body.data.tasks.map((x: { task_id: string }) => x.task_id)).toEqual([completedNew]);
    });

    it('the task routes are in the OpenAPI document with summaries', async () => {
      const r = await api(t.url, 'GET', '/api/v1/openapi.json');
      const paths = r.body.paths as Record<string, Record<string, { summary?: string }>>;
      expect(paths['/api/v1/tasks']!.get!.summary).toContain('pinned first');
      expect(Object.keys(paths)).toEqual(
        expect.arrayContaining(['/api/v1/tasks/batch', '/api/v1/tasks/{taskId}/speakers/merge', '/api/v1/sse/audio/{taskId}']),
      );
    });

    it('needs an API key, checked before the body is read', async () => {
      const r = await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', { body: '{not json' });
      expect(r.status).toBe(401);
      expect(r.body.data.error_code).toBe('auth_missing_api_key');
      expect((await api(t.url, 'GET', '/api/v1/tasks')).body.data.error_code).toBe('auth_missing_api_key');
      expect((await api(t.url, 'GET', '/api/v1/tasks', { key: 'svc_nope' })).status).toBe(401);
    });
  });

  describe('pin, read, name', () => {
    it('PUT pin sets the flag; a missing or non-boolean is_pinned is 422; foreign or unknown ids are 404', async () => {
      const task = await seedTask(t);
      const r = await api(t.url, 'PUT', `/api/v1/tasks/${task.taskId}/pin`, { key: t.keyA, body: { is_pinned: true } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ data: { is_pinned: true } });
      expect((await t.mod.store.getTask(task.taskId))!.isPinned).toBe(true);
      for (const body of [{}, { is_pinned: 'true' }, { is_pinned: 1 }, { is_pinned: null }]) {
        const bad = await api(t.url, 'PUT', `/api/v1/tasks/${task.taskId}/pin`, { key: t.keyA, body });
        expect(bad.status).toBe(422);
        expect(bad.body.data.error_code).toBe('validation_failed');
      }
      const foreign = await api(t.url, 'PUT', `/api/v1/tasks/${task.taskId}/pin`, { key: t.keyB, body: { is_pinned: false } });
      expect(foreign.status).toBe(404);
      expect(foreign.body.data.error_code).toBe('recording_not_found');
      expect((await t.mod.store.getTask(task.taskId))!.isPinned).toBe(true);
      expect((await api(t.url, 'PUT', '/api/v1/tasks/not-a-uuid/pin', { key: t.keyA, body: { is_pinned: true } })).status).toBe(404);
    });

    it('PUT read answers is_unread false and clears the flag', async () => {
      const task = await seedTask(t);
      const r = await api(t.url, 'PUT', `/api/v1/tasks/${task.taskId}/read`, { key: t.keyA });
      expect(r.body).toEqual({ data: { is_unread: false } });
      expect((await t.mod.store.getTask(task.taskId))!.isUnread).toBe(false);
      expect((await api(t.url, 'PUT', `/api/v1/tasks/${task.taskId}/read`, { key: t.keyB })).status).toBe(404);
    });

    it('PATCH name trims, allows 60 characters, refuses 61, empty and line breaks; name_source becomes user', async () => {
      const task = await seedTask(t);
      const sixty = '會'.repeat(60);
      const r = await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/name`, { key: t.keyA, body: { name: `  ${sixty} ` } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: expect.any(String), data: { task_id: task.taskId, name: sixty, name_source: 'user' } });
      const listed = await api(t.url, 'GET', `/api/v1/tasks?task_ids[]=${task.taskId}`, { key: t.keyA });
      expect(listed.body.data.tasks[0].title).toBe(sixty);
      for (const name of ['x'.repeat(61), '   ', 'a\nb', 42]) {
        const bad = await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/name`, { key: t.keyA, body: { name } });
        expect(bad.status).toBe(422);
        expect(bad.body.data.error_code).toBe('validation_failed');
      }
      expect((await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/name`, { key: t.keyB, body: { name: 'x' } })).status).toBe(404);
      expect((await t.mod.store.getTask(task.taskId))!.title).toBe(sixty);
    });

    it('PUT batch/pin counts only own tasks actually updated', async () => {
      const a1 = await seedTask(t);
      const a2 = await seedTask(t);
      const b1 = await seedTask(t, { accountId: t.principalB.accountId, keyId: t.principalB.keyId });
      const body = { task_ids: [a1.taskId, a2.taskId, b1.taskId, randomUUID()], is_pinned: true };
      const r = await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body });
      expect(r.body).toEqual({ data: { affected_count: 2 } });
      const again = await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body });
      expect(again.body.data.affected_count).toBe(0);
      expect((await t.mod.store.getTask(b1.taskId))!.isPinned).toBe(false);
      for (const bad of [
        { task_ids: [a1.taskId] },
        { is_pinned: true },
        { task_ids: ['x'], is_pinned: true },
        { task_ids: [], is_pinned: true },
      ]) {
        expect((await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body: bad })).status).toBe(422);
      }
      const tooMany = { task_ids: Array.from({ length: 101 }, () => randomUUID()), is_pinned: true };
      expect((await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body: tooMany })).status).toBe(422);
    });
  });

  describe('delete', () => {
    it('removes rows, audio and the imported source file; a second delete is 404', async () => {
      const task = await seedTask(t, {
        audio: true,
        source: true,
        typeSource: 'import',
        sentences: [{ sid: 1, origin: 'hello', startMs: 0, endMs: 1000 }],
      });
      await t.mod.store.setTranslations(task.taskId, 'fr', [{ sid: 1, text: 'bonjour' }]);
      await t.mod.store.setSummary(task.taskId, { text: 'S', language: 'en', mode: 'builtin', template: 'general', plainText: false });
      const before = filesUnder(join(t.dataDir, 'blobs')).filter((f) => f.includes(task.taskId));
      expect(before.length).toBe(2);
      expect((await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyB })).status).toBe(404);
      const r = await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyA });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ message: expect.any(String) });
      expect(filesUnder(join(t.dataDir, 'blobs')).filter((f) => f.includes(task.taskId))).toEqual([]);
      const db = t.app.deps.database.db;
      for (const table of ['tasks', 'transcripts', 'sentences'] as const) {
        const rows = await db.selectFrom(table).select('task_id').where('task_id', '=', task.taskId).execute();
        expect(rows, table).toEqual([]);
      }
      expect((await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyA })).body.data.error_code).toBe(
        'recording_not_found',
      );
    });

    it('is refused with 422 invalid_processing_status while the task is in progress or its import is processing', async () => {
      for (const status of ['recording', 'importing', 'uploading', 'processing'] as const) {
        const task = await seedTask(t, { status });
        const r = await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyA });
        expect(r.status, status).toBe(422);
        expect(r.body.data.error_code).toBe('invalid_processing_status');
        expect(await t.mod.store.getTask(task.taskId)).not.toBeNull();
      }
      const importId = randomUUID();
      const task = await seedTask(t, { importId, typeSource: 'import' });
      await pendingImport(t, importId, task.taskId);
      const r = await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyA });
      expect(r.status).toBe(422);
      expect(r.body.data.error_code).toBe('invalid_processing_status');
      await t.app.deps.imports.store.fail(importId, 'internal_error', 'x');
      expect((await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: t.keyA })).status).toBe(200);
    });

    it('DELETE batch deletes own finished tasks and reports the rest as skipped', async () => {
      const done = await seedTask(t, { audio: true });
      const failed = await seedTask(t, { status: 'failed' });
      const busy = await seedTask(t, { status: 'processing' });
      const foreign = await seedTask(t, { accountId: t.principalB.accountId, keyId: t.principalB.keyId });
      const unknown = randomUUID();
      const r = await api(t.url, 'DELETE', '/api/v1/tasks/batch', {
        key: t.keyA,
        body: { task_ids: [done.taskId, failed.taskId, busy.taskId, foreign.taskId, unknown] },
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        message: expect.any(String),
        data: {
          deleted_count: 2,
          skipped: [
            { task_id: busy.taskId, reason: 'invalid_processing_status' },
            { task_id: foreign.taskId, reason: 'not_found' },
            { task_id: unknown, reason: 'not_found' },
          ],
        },
      });
      expect(await t.mod.store.getTask(done.taskId)).toBeNull();
      expect(await t.mod.store.getTask(foreign.taskId)).not.toBeNull();
      expect(filesUnder(join(t.dataDir, 'blobs')).filter((f) => f.includes(done.taskId))).toEqual([]);
      expect((await api(t.url, 'DELETE', '/api/v1/tasks/batch', { key: t.keyA, body: { task_ids: ['x'] } })).status).toBe(422);
      expect((await api(t.url, 'DELETE', '/api/v1/tasks/batch', { key: t.keyA, body: {} })).status).toBe(422);
    });
  });

  describe('force-fail and retry', () => {
    it('force-fail ends a connected session, fails the task and queues recording.failed (user_forced)', async () => {
      const task = await seedTask(t, { status: 'recording' });
      const seen: { topic: string; message: unknown }[] = [];
      const off1 = await t.app.deps.bus.subscribe(SESSION_FORCE_END_TOPIC, (message, topic) => seen.push({ topic, message }));
      try {
        expect((await api(t.url, 'POST', `/api/v1/tasks/${task.taskId}/force-fail`, { key: t.keyB })).status).toBe(404);
        const r = await api(t.url, 'POST', `/api/v1/tasks/${task.taskId}/force-fail`, { key: t.keyA });
        expect(r.status).toBe(200);
        expect(r.body).toEqual({
          message: expect.any(String),
          data: { task_id: task.taskId, processing_status: 'failed', failure_source: 'user_forced' },
        });
        await new Promise((res) => setTimeout(res, 10));
        expect(seen).toEqual([{ topic: SESSION_FORCE_END_TOPIC, message: { task_id: task.taskId, reason: 'user_forced' } }]);
        expect((await outboxFor(t.app, task.taskId)).map((e) => [e.event, e.data.failure_source])).toEqual([
          ['recording.failed', 'user_forced'],
        ]);
      } finally {
        off1();
      }
      // The ended session's own "stop" can no longer move the task.
      await expect(t.mod.store.setStatus(task.taskId, 'uploading')).rejects.toMatchObject({ code: 'invalid_processing_status' });
      const again = await api(t.url, 'POST', `/api/v1/tasks/${task.taskId}/force-fail`, { key: t.keyA });
      expect(again.status).toBe(422);
      expect(again.body.data.error_code).toBe('invalid_processing_status');
    });

    it('force-fail works in every in-progress state, not on completed tasks nor while the import processes', async () => {
      for (const status of ['importing', 'uploading', 'processing'] as const) {
        const task = await seedTask(t, { status });
        expect((await api(t.url, 'POST', `/api/v1/tasks/${task.taskId}/force-fail`, { key: t.keyA })).status, status).toBe(200);
      }
      const done = await seedTask(t);
      expect((await api(t.url, 'POST', `/api/v1/tasks/${done.taskId}/force-fail`, { key: t.keyA })).status).toBe(422);
      const importId = randomUUID();
      const importing = await seedTask(t, { status: 'importing', importId });
      await pendingImport(t, importId, importing.taskId);
      const r = await api(t.url, 'POST', `/api/v1/tasks/${importing.taskId}/force-fail`, { key: t.keyA });
      expect(r.status).toBe(422);
      expect((await t.mod.store.getTask(importing.taskId))!.processingStatus).toBe('importing');
    });

    it('retry: 422 without a reprocessor, without audio, or when not failed; otherwise 202 and processing', async () => {
      // The task service with other ports than the app's (a deployment without reprocessing;
      // a queue that records or refuses): its answers are the ones the routes render.
      const serviceWith = (reprocessor?: TaskReprocessor) =>
        new TaskService({ store: t.mod.store, database: t.app.deps.database, blobs: t.app.deps.blobs, bus: t.app.deps.bus, reprocessor });
      const task = await seedTask(t, { status: 'failed', audio: true });
      await expect(serviceWith().retry(t.principalA, task.taskId)).rejects.toMatchObject({
        code: 'invalid_processing_status',
        details: { reason: 'reprocessing_unavailable' },
      });
      const queued: string[] = [];
      const recording = serviceWith({ reprocess: async (x) => void queued.push(x.taskId) });
      await expect(recording.retry(t.principalB, task.taskId)).rejects.toMatchObject({ code: 'recording_not_found' });
      expect(await recording.retry(t.principalA, task.taskId)).toMatchObject({ taskId: task.taskId, processingStatus: 'processing' });
      expect(queued).toEqual([task.taskId]);
      expect((await t.mod.store.getTask(task.taskId))!.processingStatus).toBe('processing');
      await expect(recording.retry(t.principalA, task.taskId)).rejects.toMatchObject({ code: 'invalid_processing_status' });
      // A reprocessor that cannot queue leaves the task failed.
      const broken = await seedTask(t, { status: 'failed', audio: true });
      const refusing = serviceWith({
        reprocess: async () => {
          throw new Error('queue down');
        },
      });
      await expect(refusing.retry(t.principalA, broken.taskId)).rejects.toMatchObject({ code: 'internal_error' });
      expect((await t.mod.store.getTask(broken.taskId))!.processingStatus).toBe('failed');

      // Over HTTP with the app's own queue: 404 for another account, 202 and a durable job, then 422.
      const real = await seedTask(t, { status: 'failed', audio: true });
      expect((await api(t.url, 'POST', `/api/v1/tasks/${real.taskId}/retry`, { key: t.keyB })).status).toBe(404);
      const r = await api(t.url, 'POST', `/api/v1/tasks/${real.taskId}/retry`, { key: t.keyA });
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ message: expect.any(String), data: { task_id: real.taskId, processing_status: 'processing' } });
      const jobs = await t.app.deps.database.db.selectFrom('jobs').select('payload').where('name', '=', 'task.reprocess').execute();
      expect(jobs.map((j) => JSON.parse(j.payload).taskId)).toContain(real.taskId);
      const noAudio = await seedTask(t, { status: 'failed' });
      const na = await api(t.url, 'POST', `/api/v1/tasks/${noAudio.taskId}/retry`, { key: t.keyA });
      expect(na.status).toBe(422);
      expect(na.body.data).toMatchObject({ error_code: 'invalid_processing_status', details: { reason: 'no_audio' } });
    });
  });
});

describe.each(backends())('list JSON built by the database (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  it('equals the Task list item shape for every kind of value', async () => {
    const tasks = [
      await seedTask(t, { durationMs: 0, transcriptionLanguages: null, createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, 1)) }),
      await seedTask(t, {
        createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, 2)),
        durationMs: 59_999,
        translationLanguages: ['fr', 'zh-TW'],
        title: 'Ünïcode "quoted" \\ 會議',
      }),
      await seedTask(t, {
        createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, 3)),
        durationMs: 7_260_500,
        type: 'broadcast',
        typeSource: 'broadcast',
        recognitionMode: 'multi_speaker',
      }),
      await seedTask(t, { createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, 4)), durationMs: 600_000, status: 'failed' }),
    ];
    await t.mod.store.setSummary(tasks[1]!.taskId, { text: 's', language: 'fr', mode: 'custom', template: 'x', plainText: true });
    await t.mod.store.setPinned(tasks[2]!.accountId, [tasks[2]!.taskId], true);
    await t.mod.store.markRead(tasks[0]!.accountId, tasks[0]!.taskId);
    const r = await api(t.url, 'GET', '/api/v1/tasks?status=all', { key: t.keyA });
    const expected = (await t.mod.store.listTasks(tasks[0]!.accountId, null, null)).map(taskListItem);
    expect(r.body.data.tasks).toEqual(expected);
    expect(r.body.data.tasks.map((x: { duration_formatted: string }) => x.duration_formatted)).toEqual([
      '121:00',
      '10:00',
      '00:59',
      '00:00',
    ]);
    const none = await api(t.url, 'GET', '/api/v1/tasks', { key: t.keyB });
    expect(none.body).toEqual({ data: { tasks: [] } });
  });
});
