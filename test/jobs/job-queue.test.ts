/**
 * The job behaviour suite, run on every JobQueue: the database queue on SQLite and PostgreSQL,
 * and BullMQ on Redis (with REDIS_URL). Leases, retries with backoff and Retry-After, permanent
 * failures, restarts, crash recovery, dedupe, transactional enqueue and many workers sharing jobs.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engines/errors.js';
import { BullJobQueue } from '../../src/jobs/bull-queue.js';
import { StoreJobQueue } from '../../src/jobs/store-queue.js';
import { type JobQueue, PermanentJobError } from '../../src/jobs/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { fixedSchedule } from '../../src/platform/retry.js';
import { migrate } from '../../src/schema.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import { backends, createPgSchema, dropPgSchema } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';

const logger = createLogger('silent');

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 5000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

type QueueBackend = 'sqlite' | 'postgres' | 'bullmq';
const redisUrl = testRedisUrl();
const queueBackends: QueueBackend[] = [...backends(), ...(redisUrl ? (['bullmq'] as const) : [])];

describe.each(queueBackends)('durable job queue on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  // Every queue of one test shares one Redis key prefix (as processes of one deployment do).
  let prefix = '';
  async function database(): Promise<Database> {
    prefix = `parley-test-${randomUUID()}`;
    if (backend === 'postgres' || (backend === 'bullmq' && process.env.DATABASE_URL)) {
      const schema = await createPgSchema();
      const db = openDatabase({ databaseUrl: process.env.DATABASE_URL, sqlitePath: '', pgSchema: schema });
      cleanups.push(async () => {
        await db.close();
        await dropPgSchema(schema);
      });
      await migrate(db);
      return db;
    }
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const db = openDatabase({ sqlitePath: join(mkdtempSync(join(tmpdir(), 'parley-jobs-')), 'db.sqlite') });
    cleanups.push(() => db.close());
    await migrate(db);
    return db;
  }

  /** A queue as one process has it; `closeMs` null: the test closes it itself. */
  function queue(db: Database, leaseMs = 60_000, closeMs: number | null = 200): JobQueue {
    const q: JobQueue =
      backend === 'bullmq'
        ? new BullJobQueue(redisUrl as string, db, { logger, prefix, leaseMs, pollMs: 20 })
        : new StoreJobQueue(db, { logger, pollMs: 20, leaseMs });
    if (closeMs !== null) cleanups.push(() => q.close(closeMs));
    return q;
  }

  it('stats: depth and age per job name (waiting, delayed, running)', async () => {
    const db = await database();
    const q = queue(db);
    await q.enqueue('stats-a', { n: 1 });
    await q.enqueue('stats-a', { n: 2 });
    await q.enqueue('stats-a', { n: 3 }, { runAt: new Date(Date.now() + 3_600_000) });
    const waiting = await waitFor(async () => {
      const a = (await q.stats()).find((s) => s.name === 'stats-a');
      return a && a.waiting === 2 && a.delayed === 1 ? a : null;
    });
    expect(waiting.running).toBe(0);
    expect(waiting.oldestWaitingSeconds).toBeGreaterThanOrEqual(0);
    // A worker holding one job: it is running, one still waits.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    q.work('stats-a', () => held, { concurrency: 1 });
    const busy = await waitFor(async () => {
      const a = (await q.stats()).find((s) => s.name === 'stats-a');
      return a && a.running === 1 ? a : null;
    });
    expect(busy.waiting).toBe(1);
    release();
  });

  it('fairness: one group with many waiting jobs takes turns with another group instead of running ahead of it', async () => {
    const db = await database();
    const q = queue(db);
    // Account a queues eight jobs, then account b queues two: b's wait behind at most one of a's each.
    for (let n = 1; n <= 8; n++) await q.enqueue('fair', { who: `a${n}` }, { fairKey: 'account-a' });
    for (let n = 1; n <= 2; n++) await q.enqueue('fair', { who: `b${n}` }, { fairKey: 'account-b' });
    const order: string[] = [];
    q.work<{ who: string }>(
      'fair',
      async (p) => {
        order.push(p.who);
        await new Promise((r) => setTimeout(r, 5));
      },
      { concurrency: 1 },
    );
    await waitFor(async () => order.length === 10, 15_000);
    // a1 may already run when b's arrive; after it the groups alternate until b has none left.
    expect(order.indexOf('b1'), order.join(' ')).toBeLessThanOrEqual(2);
    expect(order.indexOf('b2'), order.join(' ')).toBeLessThanOrEqual(4);
    expect(order.filter((w) => w.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8']);
  });

  it.skipIf(backend === 'bullmq')('jobs enqueued in the same millisecond run in the order they were enqueued, group by group', async () => {
    const db = await database();
    // A clock that stands still: every job gets the same run_at and every claim the same
    // claimed_at, as a burst of uploads on a fast machine may. Which group goes next is then a
    // tie; the order inside each group is not.
    const at = new Date();
    const q = new StoreJobQueue(db, { logger, pollMs: 20, now: () => at });
    cleanups.push(() => q.close(200));
    for (let n = 1; n <= 8; n++)
      for (const g of ['a', 'b', 'c']) await q.enqueue('burst', { who: `${g}${n}` }, { fairKey: `account-${g}` });
    const order: string[] = [];
    q.work<{ who: string }>('burst', async (p) => void order.push(p.who), { concurrency: 1 });
    await waitFor(async () => order.length === 24, 15_000);
    for (const g of ['a', 'b', 'c'])
      expect(
        order.filter((w) => w.startsWith(g)),
        order.join(' '),
      ).toEqual(Array.from({ length: 8 }, (_, i) => `${g}${i + 1}`));
  });

  it('runs a job once and marks it done', async () => {
    const db = await database();
    const q = queue(db);
    const seen: unknown[] = [];
    q.work<{ n: number }>('echo', async (p) => {
      seen.push(p.n);
    });
    const id = await q.enqueue('echo', { n: 7 });
    const job = await waitFor(async () => ((await q.get(id))?.status === 'done' ? q.get(id) : null));
    expect(seen).toEqual([7]);
    expect(job?.attempts).toBe(1);
  });

  it('retries a failing job with backoff, then succeeds', async () => {
    const db = await database();
    const q = queue(db);
    let calls = 0;
    q.work(
      'flaky',
      async (_p, ctx) => {
        calls++;
        if (ctx.attempt < 3) throw new Error(`temporary ${ctx.attempt}`);
      },
      { backoffMs: () => 10 },
    );
    const id = await q.enqueue('flaky', {}, { maxAttempts: 5 });
    const job = await waitFor(async () => ((await q.get(id))?.status === 'done' ? q.get(id) : null));
    expect(calls).toBe(3);
    expect(job?.attempts).toBe(3);
  });

  it("a failure's Retry-After sets the next run, except under an exact schedule (webhooks)", async () => {
    const db = await database();
    const q = queue(db);
    const asked = Object.assign(new Error('rate limited'), { retryable: true, retryAfterMs: 60_000 });
    q.work(
      'limited',
      async () => {
        throw asked;
      },
      { backoffMs: () => 10 },
    );
    q.work(
      'scheduled',
      async () => {
        throw asked;
      },
      { backoffMs: fixedSchedule([10]) },
    );
    const t0 = Date.now();
    const a = await q.enqueue('limited', {}, { maxAttempts: 3 });
    const b = await q.enqueue('scheduled', {}, { maxAttempts: 2 });
    const ja = await waitFor(async () => {
      const j = await q.get(a);
      return j?.attempts === 1 && j.status === 'pending' ? j : null;
    });
    expect(Date.parse(ja.run_at as string) - t0).toBeGreaterThanOrEqual(59_000);
    // The exact schedule retried after 10 ms and failed for good on its last attempt.
    expect(await waitFor(async () => ((await q.get(b))?.status === 'failed' ? q.get(b) : null))).toMatchObject({ attempts: 2 });
  });

  it('fails for good after max attempts, or at once on a permanent or unrecoverable error', async () => {
    const db = await database();
    const q = queue(db);
    q.work(
      'always',
      async () => {
        throw new Error('nope');
      },
      { backoffMs: () => 5 },
    );
    q.work('fatal', async () => {
      throw new PermanentJobError('bad input');
    });
    q.work('unrecoverable', async () => {
      throw new EngineError('llm_auth_failed', 'wrong key'); // retryable: false
    });
    const a = await q.enqueue('always', {}, { maxAttempts: 2 });
    const b = await q.enqueue('fatal', {}, { maxAttempts: 5 });
    const ja = await waitFor(async () => ((await q.get(a))?.status === 'failed' ? q.get(a) : null));
    const jb = await waitFor(async () => ((await q.get(b))?.status === 'failed' ? q.get(b) : null));
    const c = await q.enqueue('unrecoverable', {}, { maxAttempts: 5 });
    expect(await waitFor(async () => ((await q.get(c))?.status === 'failed' ? q.get(c) : null))).toMatchObject({
      attempts: 1,
      last_error: 'wrong key',
    });
    expect(ja).toMatchObject({ attempts: 2, last_error: 'nope' });
    expect(jb).toMatchObject({ attempts: 1, last_error: 'bad input' });
  });

  it('a job enqueued before a restart runs after it', async () => {
    const db = await database();
    const before = queue(db, 60_000, null);
    const id = await before.enqueue('later', { x: 1 });
    await before.close();
    const after = queue(db);
    const got: unknown[] = [];
    after.work('later', async (p) => {
      got.push(p);
    });
    await waitFor(async () => (await after.get(id))?.status === 'done');
    expect(got).toEqual([{ x: 1 }]);
  });

  it('a job whose worker died is claimed again when its lease expires', async () => {
    const db = await database();
    const dying = queue(db, 300, null);
    let started = false;
    dying.work('long', async () => {
      started = true;
      await new Promise(() => {}); // never finishes: the process "dies" holding the job
    });
    const id = await dying.enqueue('long', {});
    await waitFor(async () => started);
    // The handler ignores the abort: like a crashed process, it never releases the job; its
    // lease is no longer renewed once the queue has shut down.
    await dying.close(0);
    const survivor = queue(db, 300);
    const attempts: number[] = [];
    survivor.work('long', async (_p, ctx) => {
      attempts.push(ctx.attempt);
    });
    await waitFor(async () => (await survivor.get(id))?.status === 'done', 8000);
    expect(attempts).toEqual([2]);
  });

  it('dedupes by key while a job is pending, and runs it once', async () => {
    const db = await database();
    const q = queue(db);
    const a = await q.enqueue('d', { n: 1 }, { dedupeKey: 'webhook:k1', runAt: new Date(Date.now() + 300) });
    const b = await q.enqueue('d', { n: 2 }, { dedupeKey: 'webhook:k1' });
    expect(b).toBe(a);
    const runs: unknown[] = [];
    q.work('d', async (p) => {
      runs.push(p);
    });
    await waitFor(async () => (await q.get(a))?.status === 'done');
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toEqual([{ n: 1 }]);
  });

  it('a job enqueued within a transaction exists only if the transaction commits', async () => {
    const db = await database();
    const q = queue(db);
    const runs: string[] = [];
    q.work<{ tag: string }>('tx', async (p) => {
      runs.push(p.tag);
    });
    await expect(
      db.db.transaction().execute(async (tx) => {
        await q.enqueue('tx', { tag: 'rolled back' }, { within: tx });
        throw new Error('caller failed');
      }),
    ).rejects.toThrow('caller failed');
    const id = await db.db.transaction().execute((tx) => q.enqueue('tx', { tag: 'committed' }, { within: tx }));
    await waitFor(async () => (await q.get(id))?.status === 'done', 8000);
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toEqual(['committed']);
  });

  it('two queues on one database never run the same job twice', async () => {
    const db = await database();
    const q1 = queue(db);
    const q2 = queue(db);
    const runs = new Map<number, number>();
    const handler = async (p: { i: number }) => {
      runs.set(p.i, (runs.get(p.i) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 2));
    };
    q1.work('shared', handler, { concurrency: 2 });
    q2.work('shared', handler, { concurrency: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await q1.enqueue('shared', { i }));
    await waitFor(async () => {
      const states = await Promise.all(ids.map((id) => q1.get(id)));
      return states.every((j) => j?.status === 'done');
    }, 15_000);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(runs.size).toBe(30);
  });
});
