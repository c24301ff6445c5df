/**
 * The billing reads behind GET /me/plan and every limits check are kept in memory on SQLite
 * (src/billing/read-cache.ts, issue 30), never stale. Two app instances share one database
 * (on PostgreSQL also one Redis), as two api processes do: what one of them writes (a top-up,
 * a spend, a refund, a plan change, a revoked key) the other answers on the very next request;
 * and what only time changes (a lot expiring, a charge leaving the rolling window, a charge
 * stamped ahead by another process's clock) shows as soon as the clock gets there. On
 * PostgreSQL the reads (and key lookups) are cached too, behind the change feed's versions
 * (src/store/change-feed.ts): what another process writes shows once its notice is heard, which
 * each read here waits for (`caughtUp`; test/store/change-feed.test.ts tests the feed itself).
 */
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { type Clock, clock, realKey } from './support.js';

const redisEnv = (backend: string): Record<string, string> =>
  backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

describe.each(backends())('billing reads seen across processes (%s)', (backend) => {
  const c = clock('2026-03-10T12:00:00.000Z');
  // The second process's clock runs 10 s ahead of the first's (clocks of two machines).
  const ahead: Clock = { now: () => new Date(c.now().getTime() + 10_000), set: c.set, advance: c.advance };
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await startTestApp({ backend, now: c.now, env: redisEnv(backend) });
    second = await startTestApp({
      backend,
      now: ahead.now,
      env: redisEnv(backend),
      reuse: { dataDir: first.dataDir, pgSchema: first.pgSchema },
    });
    await first.app.deps.changes?.ready();
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  /** GET /me/plan through the first process, twice (the second answer is the cached one where there is a cache). */
  const plan = async (key: string) => {
    await first.app.deps.changes?.caughtUp(); // PostgreSQL: every notice committed so far heard
    const once = await api(first.url, 'GET', '/api/v1/me/plan', { key });
    const again = await api(first.url, 'GET', '/api/v1/me/plan', { key });
    expect(again.status).toBe(once.status);
    if (once.status !== 200) {
      expect(again.body.data.error_code).toBe(once.body.data.error_code);
      return once.body.data.error_code;
    }
    expect(again.body.data).toEqual(once.body.data);
    return once.body.data;
  };

  it('a top-up, a spend, a plan change, minutes, a refund and a revoked key from the other process show on the next request', async () => {
    const k = await realKey(first);
    const other = second.app.deps;
    expect(await plan(k.key)).toEqual({ mode: 'credit', plan: null, available_credit: 0 });

    await other.billing.grantCredit({ accountId: k.accountId, points: 100, pool: 'account' });
    expect((await plan(k.key)).available_credit).toBe(100);
    await other.billing.chargeOneOff(k, { type: 'summary', points: 30, idempotencyKey: `s:${k.keyId}` });
    expect((await plan(k.key)).available_credit).toBe(70);

    await other.plans.setPlan(k.accountId, 'unlimited-plan');
    const bound = await plan(k.key);
    expect(bound.plan.name).toBe('standard');
    expect(bound.limits).toMatchObject({ daily_used_minutes: 0, rolling_used_minutes: 0 });

    // Minutes charged by the other process (its clock 10 s ahead): the day counts them at
    // once; the rolling window (which ends now) once this process's clock reaches them.
    const rec = await other.billing.startUsage(k, { type: 'recording' });
    await other.billing.charge(rec.id, { idempotencyKey: 'm0', points: 1, minutes: 3 });
    expect((await plan(k.key)).limits).toMatchObject({ daily_used_minutes: 3, rolling_used_minutes: 0 });
    c.advance(10_000);
    expect((await plan(k.key)).limits).toMatchObject({ daily_used_minutes: 3, rolling_used_minutes: 3 });
    await other.billing.refund(rec.id, 'manual');
    expect((await plan(k.key)).limits).toMatchObject({ daily_used_minutes: 0, rolling_used_minutes: 0 });

    await other.plans.setPlan(k.accountId, 'credit');
    expect(await plan(k.key)).toEqual({ mode: 'credit', plan: null, available_credit: 70 });

    await other.keys.updateKey(k.keyId, { disabled: true });
    expect(await plan(k.key)).toBe('auth_key_disabled');
    await other.keys.updateKey(k.keyId, { disabled: false });
    expect((await plan(k.key)).available_credit).toBe(70);
    await other.keys.deleteKey(k.keyId);
    expect(await plan(k.key)).toBe('auth_invalid_api_key');
  });

  it('time alone: a lot that expires, and minutes that leave the rolling window, stop counting at that instant', async () => {
    const k = await realKey(first);
    const expiresAt = new Date(c.now().getTime() + 60_000).toISOString();
    await first.app.deps.billing.grantCredit({ accountId: k.accountId, points: 40, pool: 'account' });
    await first.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account', expiresAt });
    expect((await plan(k.key)).available_credit).toBe(45);
    c.advance(59_999);
    expect((await plan(k.key)).available_credit).toBe(45);
    c.advance(1);
    expect((await plan(k.key)).available_credit).toBe(40);

    await first.app.deps.plans.setPlan(k.accountId, 'unlimited-plan');
    const rec = await first.app.deps.billing.startUsage(k, { type: 'recording' });
    await first.app.deps.billing.charge(rec.id, { idempotencyKey: 'm0', points: 1, minutes: 2 });
    const chargedAt = c.now().getTime();
    expect((await plan(k.key)).limits.rolling_used_minutes).toBe(2);
    // The window is 7 days (PARLEY_PLAN_ROLLING_WINDOW_DAYS) and includes its first instant.
    const week = 7 * 86_400_000;
    c.set(new Date(chargedAt + week).toISOString());
    expect((await plan(k.key)).limits.rolling_used_minutes).toBe(2);
    c.set(new Date(chargedAt + week + 1).toISOString());
    const later = (await plan(k.key)).limits;
    expect(later.rolling_used_minutes).toBe(0);
    expect(later.daily_used_minutes).toBe(0);
  });

  it('a change written by hand in SQL (an operator, another tool) shows on the next request', async () => {
    const k = await realKey(first);
    const db = second.app.deps.database.db;
    await first.app.deps.billing.grantCredit({ accountId: k.accountId, points: 10, pool: 'account' });
    expect((await plan(k.key)).available_credit).toBe(10);
    await sql`update credit_lots set remaining_milli = 4000 where account_id = ${k.accountId}`.execute(db);
    expect((await plan(k.key)).available_credit).toBe(4);
    await first.app.deps.plans.setPlan(k.accountId, 'unlimited');
    expect((await plan(k.key)).mode).toBe('unlimited');
    await sql`delete from account_plans where account_id = ${k.accountId}`.execute(db);
    expect(await plan(k.key)).toEqual({ mode: 'credit', plan: null, available_credit: 4 });
  });

  it('a principal kept past its request (a live session) never answers from an old epoch', async () => {
    const k = await realKey(first);
    await first.app.deps.billing.grantCredit({ accountId: k.accountId, points: 10, pool: 'account' });
    const kept = await first.app.deps.authenticator.authenticate({ apiKey: k.key, ip: '127.0.0.1' });
    expect((await first.app.deps.billing.standing(kept)).available).toBe(10);
    expect((await plan(k.key)).available_credit).toBe(10);
    await second.app.deps.billing.chargeOneOff(k, { type: 'summary', points: 3, idempotencyKey: `kept:${k.keyId}` });
    await first.app.deps.changes?.caughtUp();
    expect((await first.app.deps.billing.standing(kept)).available).toBe(7);
    expect((await plan(k.key)).available_credit).toBe(7);
  });

  // What shows that PostgreSQL answers from memory: a change that sends no notice (triggers off,
  // as a superuser's bulk load can do) is not seen until something moves the version.
  it.runIf(backend === 'postgres')('on PostgreSQL the plan, balances and minutes are cached behind the change feed', async () => {
    const k = await realKey(first);
    const db = second.app.deps.database.db;
    const quietly = (statement: RawBuilder<unknown>) =>
      db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await statement.execute(trx);
      });
    await first.app.deps.billing.grantCredit({ accountId: k.accountId, points: 10, pool: 'account' });
    expect((await plan(k.key)).available_credit).toBe(10);
    await quietly(sql`update credit_lots set remaining_milli = 4000 where account_id = ${k.accountId}`);
    expect((await plan(k.key)).available_credit).toBe(10);
    await second.app.deps.billing.grantCredit({ accountId: k.accountId, points: 1, pool: 'account' });
    expect((await plan(k.key)).available_credit).toBe(5);

    await second.app.deps.plans.setPlan(k.accountId, 'unlimited-plan');
    const rec = await second.app.deps.billing.startUsage(k, { type: 'recording' });
    await second.app.deps.billing.charge(rec.id, { idempotencyKey: 'm0', points: 1, minutes: 2 });
    expect((await plan(k.key)).limits.daily_used_minutes).toBe(2);
    await quietly(sql`update billing_charges set minutes = 5 where account_id = ${k.accountId}`);
    expect((await plan(k.key)).limits.daily_used_minutes).toBe(2);
    await second.app.deps.billing.charge(rec.id, { idempotencyKey: 'm1', points: 1, minutes: 1 });
    expect((await plan(k.key)).limits.daily_used_minutes).toBe(6);
  });
});
