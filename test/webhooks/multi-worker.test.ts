/**
 * Two worker processes on one PostgreSQL database and one Redis bus both hear a task's
 * outcome; the receiver still gets one recording.completed (and one recording.failed) per
 * outcome, and a second outcome of the same task (a retry) is announced again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_COMPLETED_TOPIC, TASK_FAILED_TOPIC } from '../../src/tasks/service.js';
import { createPgSchema, dropPgSchema, startTestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { startReceiver, until } from './receiver.js';

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
    const base = {
      account_id: key.account_id,
      key_id: key.key_id,
      task_id: 't-1',
      name: 'n',
      duration_ms: 1000,
      type_source: 'realtime' as const,
    };
    const lang = { transcription_languages: ['en-US'], translation_languages: null };
    await a.app.deps.bus.publish(TASK_FAILED_TOPIC, { ...base, failure_source: 'processing', at: '2026-01-01T00:00:00.000Z' });
    await a.app.deps.bus.publish(TASK_COMPLETED_TOPIC, { ...base, ...lang, at: '2026-01-01T00:01:00.000Z' });
    await a.app.deps.bus.publish(TASK_COMPLETED_TOPIC, { ...base, ...lang, at: '2026-01-01T00:02:00.000Z' }); // after a retry
    const events = () => rx.received.filter((r) => r.json?.data?.task_id === 't-1').map((r) => r.json.event);
    await until(() => events().length >= 3, 10_000, 'three notifications');
    await new Promise((r) => setTimeout(r, 1000)); // duplicates would arrive by now
    expect(events().sort()).toEqual(['recording.completed', 'recording.completed', 'recording.failed']);
  }, 30_000);
});
