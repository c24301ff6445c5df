/**
 * Two processes on one PostgreSQL database and one Redis bus, both with the worker role:
 * outcomes of one task made by either process (and a race of both on the same outcome) give
 * the receiver one recording.completed (or recording.failed) per outcome, and a second
 * outcome of the same task (a retry) is announced again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgSchema, dropPgSchema, startTestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

const redisUrl = testRedisUrl();
const pg = process.env.DATABASE_URL;

describe.skipIf(!redisUrl || !pg)('task webhooks with two workers (PostgreSQL + Redis)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('one notification per outcome, whichever worker queues it', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-w1-')), mkdtempSync(join(tmpdir(), 'parley-w2-'))];
    cleanup.push(async () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const env = { REDIS_URL: redisUrl! };
    const a = await startTestApp({ backend: 'postgres', env, reuse: { dataDir: dirs[0]!, pgSchema } });
    cleanup.push(() => a.close());
    const b = await startTestApp({ backend: 'postgres', env, reuse: { dataDir: dirs[1]!, pgSchema } });
    cleanup.push(() => b.close());
    await new Promise((r) => setTimeout(r, 200)); // subscriptions reach Redis
    const key = await a.app.deps.keys.createKey({ webhookUrl: rx.url });
    const [ta, tb] = [a.app.deps.tasks, b.app.deps.tasks];
    const newTask = () =>
      ta.store.createTask({
        accountId: key.account_id,
        keyId: key.key_id,
        title: 'n',
        type: 'transcribe',
        typeSource: 'realtime',
        recognitionMode: 'single',
        processingStatus: 'processing',
        transcriptionLanguages: ['en-US'],
      });
    const [first, second] = [await newTask(), await newTask()];
    await ta.tasks.fail(first.taskId, { source: 'processing' });
    await tb.store.setStatus(first.taskId, 'processing'); // a retry: its outcome is announced again
    // Both processes complete the same task at once: one wins, one notification.
    for (const task of [first, second]) {
      const race = await Promise.allSettled([ta.tasks.complete(task.taskId), tb.tasks.complete(task.taskId)]);
      expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
    const ids = new Set([first.taskId, second.taskId]);
    const events = () => rx.received.filter((r) => ids.has(r.json?.data?.task_id)).map((r) => r.json.event);
    await until(() => events().length >= 3, 10_000, 'three notifications');
    await new Promise((r) => setTimeout(r, 1000)); // duplicates would arrive by now
    expect(events().sort()).toEqual(['recording.completed', 'recording.completed', 'recording.failed']);
  }, 30_000);
});
