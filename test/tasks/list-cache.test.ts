/**
 * The rendered task list is cached per process with the account's list version from the
 * database. Two apps on the same database stand for two processes: each has its own cache,
 * and a write through either (or through plain SQL) must show in the other's next list.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskListItem } from '../../src/tasks/format.js';
import { TaskListCache } from '../../src/tasks/list-cache.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { seedTask, startTaskApp, type TaskTestApp } from './harness.js';

type Listed = { task_id: string; title: string; is_pinned: boolean; processing_status: string };

describe.each(backends())('task list cache across processes (%s)', (backend) => {
  let t: TaskTestApp;
  let other: TestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
    other = await startTestApp({ backend, reuse: { dataDir: t.dataDir, pgSchema: t.pgSchema } });
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const list = async (url: string, query = '?status=all', key = t.keyA): Promise<Listed[]> => {
    const r = await api(url, 'GET', `/api/v1/tasks${query}`, { key });
    expect(r.status).toBe(200);
    return r.body.data.tasks;
  };
  const titles = (tasks: Listed[]) => tasks.map((x) => x.title);

  it('a write through the other process shows in the next list of this one', async () => {
    const a = await seedTask(t, { title: 'first', createdAt: new Date(Date.UTC(2026, 0, 1)) });
    const b = await seedTask(t, { title: 'second', createdAt: new Date(Date.UTC(2026, 0, 2)) });
    expect(titles(await list(t.url))).toEqual(['second', 'first']);
    expect(titles(await list(t.url))).toEqual(['second', 'first']);

    const pin = await api(other.url, 'PUT', `/api/v1/tasks/${a.taskId}/pin`, { key: t.keyA, body: { is_pinned: true } });
    expect(pin.status).toBe(200);
    const pinned = await list(t.url);
    expect(titles(pinned)).toEqual(['first', 'second']);
    expect(pinned[0]!.is_pinned).toBe(true);

    const renamed = await api(other.url, 'PATCH', `/api/v1/tasks/${b.taskId}/name`, { key: t.keyA, body: { name: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(titles(await list(t.url))).toEqual(['first', 'renamed']);
    // The default (completed) list is a separate copy: it is refreshed too.
    expect(titles(await list(t.url, ''))).toEqual(['first', 'renamed']);

    const otherStore = other.app.deps.tasks.store;
    const c = await otherStore.createTask({
      ...t.principalA,
      title: 'third',
      type: 'transcribe',
      typeSource: 'import',
      recognitionMode: 'single',
      processingStatus: 'processing',
      createdAt: new Date(Date.UTC(2026, 0, 3)),
    });
    expect(titles(await list(t.url))).toEqual(['first', 'third', 'renamed']);
    expect(titles(await list(t.url, ''))).toEqual(['first', 'renamed']);
    await otherStore.setStatus(c.taskId, 'completed');
    expect(titles(await list(t.url, ''))).toEqual(['first', 'third', 'renamed']);

    const deleted = await api(other.url, 'DELETE', `/api/v1/tasks/${a.taskId}`, { key: t.keyA });
    expect(deleted.status).toBe(200);
    expect(titles(await list(t.url))).toEqual(['third', 'renamed']);

    // A write that bypasses the store (an operator's SQL) is caught by the triggers as well.
    await sql`update tasks set title = ${'edited by hand'} where task_id = ${c.taskId}`.execute(other.app.deps.database.db);
    expect(titles(await list(t.url))).toEqual(['edited by hand', 'renamed']);

    // The other account's list was never mixed in and stays empty.
    expect(await list(t.url, '?status=all', t.keyB)).toEqual([]);
    // And what both processes serve is exactly the store's current list.
    const expected = (await t.mod.store.listTasks(t.principalA.accountId, null, null)).map(taskListItem);
    expect(await list(t.url)).toEqual(expected);
    expect(await list(other.url)).toEqual(expected);
  });

  it('serves its copy while the version is unchanged, and only then', async () => {
    const task = await seedTask(t, { title: 'cached', createdAt: new Date(Date.UTC(2026, 0, 4)) });
    expect(titles(await list(t.url))).toContain('cached');
    const db = other.app.deps.database.db;
    // Change a row and put the version back: only a cache can still answer with the old title.
    const before = await db
      .selectFrom('task_list_versions')
      .select('version')
      .where('account_id', '=', t.principalA.accountId)
      .executeTakeFirstOrThrow();
    await sql`update tasks set title = ${'changed'} where task_id = ${task.taskId}`.execute(db);
    await db.updateTable('task_list_versions').set({ version: before.version }).where('account_id', '=', t.principalA.accountId).execute();
    expect(titles(await list(t.url))).toContain('cached');
    // The other process never rendered this version: it reads the row as it is.
    expect(titles(await list(other.url))).toContain('changed');
    await db
      .updateTable('task_list_versions')
      .set({ version: before.version + 1 })
      .where('account_id', '=', t.principalA.accountId)
      .execute();
    expect(titles(await list(t.url))).toContain('changed');
  });

  it('concurrent batch and single writes of one account from both processes all succeed, and both then list the stored rows', async () => {
    const seeded = [];
    for (let i = 0; i < 20; i++) seeded.push(await seedTask(t, { title: `c${i}`, createdAt: new Date(Date.UTC(2026, 1, 1, 0, i)) }));
    const ids = seeded.map((x) => x.taskId);
    const ops: Promise<{ status: number }>[] = [];
    for (let round = 0; round < 6; round++) {
      const url = round % 2 ? other.url : t.url;
      ops.push(api(url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body: { task_ids: ids, is_pinned: round % 3 !== 0 } }));
      ops.push(
        api(url, 'PUT', '/api/v1/tasks/batch/pin', { key: t.keyA, body: { task_ids: [...ids].reverse(), is_pinned: round % 3 === 0 } }),
      );
      for (const [i, id] of ids.entries()) {
        if (i % 4 === round % 4) ops.push(api(url, 'PATCH', `/api/v1/tasks/${id}/name`, { key: t.keyA, body: { name: `r${round}-${i}` } }));
        if (i % 5 === round % 5)
          ops.push(api(url, 'PUT', `/api/v1/tasks/${id}/pin`, { key: t.keyA, body: { is_pinned: round % 2 === 0 } }));
      }
      ops.push(api(url, 'GET', '/api/v1/tasks?status=all', { key: t.keyA }));
    }
    const results = await Promise.all(ops);
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const expected = (await t.mod.store.listTasks(t.principalA.accountId, null, null)).map(taskListItem);
    expect(await list(t.url)).toEqual(expected);
    expect(await list(other.url)).toEqual(expected);
  });
});

describe('TaskListCache', () => {
  const body = (n: number, fill = 'x') => Buffer.from(fill.repeat(n));

  it('answers only for the version it holds, and keeps the newer of two racing renders', () => {
    const cache = new TaskListCache(1000);
    cache.set('a', 2, body(10, 'b'));
    expect(cache.get('a', 2)?.toString()).toBe('b'.repeat(10));
    expect(cache.get('a', 3)).toBeUndefined();
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('a', 1, body(10, 'o'));
    expect(cache.get('a', 2)?.toString()).toBe('b'.repeat(10));
    cache.set('a', 3, body(10, 'n'));
    expect(cache.get('a', 3)?.toString()).toBe('n'.repeat(10));
    expect(cache.size).toBe(1);
  });

  it('drops the least recently used copies past its size limit and never keeps an oversized one', () => {
    const cache = new TaskListCache(1000);
    cache.set('a', 1, body(400));
    cache.set('b', 1, body(400));
    expect(cache.get('a', 1)).toBeDefined(); // a is now the most recently used
    cache.set('c', 1, body(400));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBeDefined();
    expect(cache.get('c', 1)).toBeDefined();
    cache.set('d', 1, body(1001));
    expect(cache.get('d', 1)).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
