/**
 * The live_recordings rows (src/realtime/live/store.ts) on SQLite and PostgreSQL: who may take
 * a recording and when. Every change of holder is one conditional UPDATE, so of two processes
 * claiming the same recording exactly one wins; a live holder's lease, a parked row's grace and
 * the end states decide what a resume or the orphan sweep may do.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LiveRecordingStore, tokenHash } from '../../src/realtime/live/store.js';
import { migrate } from '../../src/schema.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import { backends, createPgSchema, dropPgSchema } from '../support/app.js';

const A = randomUUID();
const B = randomUUID();
const C = randomUUID();
const GRACE = 10_000;
const LEASE = 5_000;

describe.each(backends())('live recording rows (%s)', (backend) => {
  let database: Database;
  let pgSchema: string | undefined;
  let now = Date.parse('2026-01-01T10:00:00.000Z');
  let store: LiveRecordingStore;
  beforeEach(async () => {
    pgSchema = backend === 'postgres' ? await createPgSchema() : undefined;
    database = openDatabase({ sqlitePath: ':memory:', databaseUrl: pgSchema ? process.env.DATABASE_URL : undefined, pgSchema });
    await migrate(database);
    store = new LiveRecordingStore(database, () => new Date(now));
  });
  afterEach(async () => {
    await database.close();
    if (pgSchema) await dropPgSchema(pgSchema);
  });

  const insert = async (holder: string, token = `${holder}.${'x'.repeat(32)}`) => {
    const taskId = randomUUID();
    await store.insert({
      task_id: taskId,
      account_id: randomUUID(),
      key_id: randomUUID(),
      usage_id: randomUUID(),
      token_hash: tokenHash(token),
      state: 'live',
      instance_id: holder,
      lease_until: new Date(now + LEASE).toISOString(),
      snapshot: '{}',
    });
    return { taskId, token };
  };

  it('a live holder keeps its recording: no resume claim, no sweep, while its lease holds', async () => {
    const { taskId, token } = await insert(A);
    expect((await store.byToken(token))?.task_id).toBe(taskId);
    expect(await store.claimForResume(taskId, B, LEASE)).toBe(false);
    now += LEASE - 1;
    await store.renew(A, LEASE);
    now += LEASE - 1;
    expect(await store.claimForResume(taskId, B, LEASE)).toBe(false);
    expect(await store.orphans(GRACE)).toEqual([]);
    // Only the holder stores segments.
    expect(await store.saveSegment(taskId, B, 1, 32_000, '{}')).toBe(false);
    expect(await store.saveSegment(taskId, A, 1, 32_000, '{"v":1}')).toBe(true);
  });

  it('a hand-over: parked by the holder, claimed by one resuming process only, within the grace', async () => {
    const { taskId } = await insert(A);
    expect(await store.park(taskId, B, GRACE)).toBe(false); // not B's to park
    expect(await store.park(taskId, A, GRACE)).toBe(true);
    expect(await store.saveSegment(taskId, A, 2, 64_000, '{}')).toBe(false); // let go
    const claims = await Promise.all([store.claimForResume(taskId, B, LEASE), store.claimForResume(taskId, C, LEASE)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.get(taskId))?.state).toBe('live');
  });

  it('a parked recording nobody claims within the grace is an orphan; one sweeping process takes it', async () => {
    const { taskId } = await insert(A);
    await store.park(taskId, A, GRACE);
    expect(await store.orphans(GRACE)).toEqual([]);
    now += GRACE + 1;
    expect(await store.claimForResume(taskId, B, LEASE)).toBe(false); // too late to resume
    expect(await store.orphans(GRACE)).toEqual([taskId]);
    const claims = await Promise.all([store.claimForRecovery(taskId, B, GRACE, LEASE), store.claimForRecovery(taskId, C, GRACE, LEASE)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.get(taskId))?.state).toBe('recovering');
  });

  it('a dead holder: its recording can be resumed at once, and is swept only after the grace', async () => {
    const resumed = await insert(A);
    const swept = await insert(A, `${A}.${'y'.repeat(32)}`);
    now += LEASE + 1; // A stopped renewing
    expect(await store.claimForResume(resumed.taskId, B, LEASE)).toBe(true);
    expect(await store.orphans(GRACE)).toEqual([]);
    now += GRACE;
    expect(await store.orphans(GRACE)).toEqual([swept.taskId]);
    expect(await store.claimForRecovery(swept.taskId, C, GRACE, LEASE)).toBe(true);
    // A sweeper that dies in turn: its claim lapses like any lease and another takes over.
    now += LEASE + GRACE + 1;
    expect(await store.claimForRecovery(swept.taskId, B, GRACE, LEASE)).toBe(true);
  });

  it('ended recordings are neither resumed nor swept, and are forgotten after an hour', async () => {
    const { taskId, token } = await insert(A);
    await store.end(taskId, 'grace_expired');
    now += LEASE + GRACE + 1;
    expect(await store.claimForResume(taskId, B, LEASE)).toBe(false);
    expect(await store.orphans(GRACE)).toEqual([]);
    expect((await store.byToken(token))?.state).toBe('grace_expired');
    now += 60 * 60 * 1000;
    await insert(B); // old rows go with new ones
    expect(await store.byToken(token)).toBeUndefined();
  });
});
