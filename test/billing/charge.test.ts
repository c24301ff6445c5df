import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_EXHAUSTED, CREDIT_LOW } from '../../src/billing/events.js';
import { backends, type TestApp } from '../support/app.js';
import { clock, ledger, principal, realKey, refusal, startBillingApp } from './support.js';

const DAY = 86_400_000;

describe.each(backends())('billing charges (%s)', (backend) => {
  const c = clock();
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c);
  });
  afterAll(() => t?.close());

  const billing = () => t.app.deps.billing;

  it('draws the key allotment first, then account lots by soonest expiry, never-expiring last; expired lots never count', async () => {
    const p = principal();
    const b = billing();
    await b.grantCredit({ accountId: p.accountId, points: 10, pool: 'account', expiresAt: null });
    await b.grantCredit({ accountId: p.accountId, points: 10, pool: 'account', expiresAt: '2026-06-01T00:00:00Z' });
    await b.grantCredit({ accountId: p.accountId, points: 10, pool: 'account', expiresAt: '2026-04-01T00:00:00Z' });
    await b.grantCredit({ accountId: p.accountId, points: 100, pool: 'account', expiresAt: '2026-03-01T00:00:00Z' }); // already expired
    await b.grantCredit({ accountId: p.accountId, points: 5, pool: 'key', keyId: p.keyId });
    expect(await b.available(p)).toBe(35);

    const r = await b.chargeOneOff(p, { type: 'summary', points: 22, idempotencyKey: `${p.keyId}:1` });
    expect(r.charged).toBe(22);
    const lots = await b.store.lotsFor(p.accountId, p.keyId, true, c.now());
    // key lot (5) and the April lot (10) are empty; 7 came from the June lot; never-expiring untouched.
    expect(lots.map((l) => [l.pool, l.expiresAt, l.remainingMilli])).toEqual([
      ['account', '2026-06-01T00:00:00.000Z', 3000],
      ['account', null, 10000],
    ]);
    expect(await ledger(t, p.accountId)).toEqual({ usageMilli: 22000, takenMilli: 22000, negativeLots: 0 });
  });

  it('refuses a charge larger than the credit with auth_quota_exceeded and records nothing', async () => {
    const p = principal();
    await billing().grantCredit({ accountId: p.accountId, points: 3, pool: 'account' });
    const err = await refusal(billing().chargeOneOff(p, { type: 'summary', points: 5, idempotencyKey: `${p.keyId}:x` }));
    expect(err.code).toBe('auth_quota_exceeded');
    expect(err.status).toBe(402);
    expect(err.details).toEqual({ budget_scope: 'account_credit', remaining_budget: 3, required: 5 });
    expect((await billing().store.listUsage(p.accountId, 1, 20)).total).toBe(0);
    expect(await billing().available(p)).toBe(3);
  });

  it('the same charge twice is charged once (idempotency key)', async () => {
    const p = principal();
    await billing().grantCredit({ accountId: p.accountId, points: 10, pool: 'account' });
    const usage = await billing().startUsage(p, { type: 'recording' });
    const a = await billing().charge(usage.id, { idempotencyKey: 'm0', points: 1, minutes: 1 });
    const b = await billing().charge(usage.id, { idempotencyKey: 'm0', points: 1, minutes: 1 });
    const c2 = await billing().charge(usage.id, { idempotencyKey: 'm1', points: 1, minutes: 1 });
    expect([a.duplicate, b.duplicate, c2.duplicate]).toEqual([false, true, false]);
    expect(c2.usage.pointsMilli).toBe(2000);
    expect(c2.usage.minutes).toBe(2);
    expect(c2.usage.inProgress).toBe(true);
    expect(c2.usage.endedAt).toBeNull();
    const one = await billing().chargeOneOff(p, { type: 'summary', points: 2, idempotencyKey: `sum:${p.keyId}` });
    const two = await billing().chargeOneOff(p, { type: 'summary', points: 2, idempotencyKey: `sum:${p.keyId}` });
    expect(two.duplicate).toBe(true);
    expect(two.usage.id).toBe(one.usage.id);
    expect(await billing().available(p)).toBe(6);
    expect(await ledger(t, p.accountId)).toMatchObject({ usageMilli: 4000, takenMilli: 4000 });
  });

  it('refunds return points to the lots they came from, once', async () => {
    const p = principal();
    await billing().grantCredit({ accountId: p.accountId, points: 2, pool: 'key', keyId: p.keyId });
    await billing().grantCredit({ accountId: p.accountId, points: 10, pool: 'account' });
    const usage = await billing().startUsage(p, { type: 'recording' });
    await billing().charge(usage.id, { idempotencyKey: 'm0', points: 3, minutes: 1 });
    await billing().endUsage(usage.id);
    const r = await billing().refund(usage.id, 'no_audio');
    expect(r.refunded).toBe(3);
    expect(r.usage).toMatchObject({ refunded: true, refundReason: 'no_audio', pointsMilli: 0, inProgress: false });
    const again = await billing().refund(usage.id, 'manual');
    expect(again.refunded).toBe(0);
    expect(again.usage.refundReason).toBe('no_audio');
    const lots = await billing().store.lotsFor(p.accountId, p.keyId, true, c.now());
    expect(lots.map((l) => [l.pool, l.remainingMilli])).toEqual([
      ['key', 2000],
      ['account', 10000],
    ]);
    expect(await ledger(t, p.accountId)).toMatchObject({ usageMilli: 0, takenMilli: 0 });
  });

  it('unlimited plans record 0-point rows that still count minutes', async () => {
    const p = principal();
    await t.app.deps.plans.setPlan(p.accountId, 'unlimited');
    const usage = await billing().startUsage(p, { type: 'recording' });
    const r = await billing().charge(usage.id, { idempotencyKey: 'm0', points: 1, minutes: 1 });
    expect(r.charged).toBe(0);
    expect(r.usage).toMatchObject({ pointsMilli: 0, minutes: 1 });
  });

  it('broadcasts always consume points, also under an unlimited authorization; without credit they are refused', async () => {
    const p = principal();
    await t.app.deps.plans.setPlan(p.accountId, 'unlimited');
    await billing().grantCredit({ accountId: p.accountId, points: 1.5, pool: 'account' });
    await billing().assertCanAfford(p, 1, undefined, 'broadcast');
    const usage = await billing().startUsage(p, { type: 'broadcast' });
    const r = await billing().charge(usage.id, { idempotencyKey: 'm0', points: 1, minutes: 1 });
    expect(r.charged).toBe(1);
    expect(r.usage).toMatchObject({ pointsMilli: 1000, minutes: 1 });
    const short = await refusal(billing().assertCanAfford(p, 1, undefined, 'broadcast'));
    expect(short.code).toBe('auth_quota_exceeded');
    expect(short.details).toMatchObject({ budget_scope: 'account_credit', remaining_budget: 0.5 });
    expect((await refusal(billing().charge(usage.id, { idempotencyKey: 'm1', points: 1, minutes: 1 }))).code).toBe('auth_quota_exceeded');
    // A recording of the same account is still covered by the authorization.
    await billing().assertCanAfford(p, 100);
  });

  it('monthly spend limit per key (calendar month, UTC) refuses with budget_scope key_monthly_limit', async () => {
    const p = await realKey(t, { monthlySpendLimit: 5 });
    await billing().grantCredit({ accountId: p.accountId, points: 100, pool: 'account' });
    await billing().chargeOneOff(p, { type: 'summary', points: 4, idempotencyKey: `a:${p.keyId}` });
    expect(await billing().monthlySpent(p.keyId)).toBe(4);
    const err = await refusal(billing().chargeOneOff(p, { type: 'summary', points: 2, idempotencyKey: `b:${p.keyId}` }));
    expect(err.code).toBe('auth_quota_exceeded');
    expect(err.details).toMatchObject({ budget_scope: 'key_monthly_limit', remaining_budget: 1 });
    // Next calendar month the budget is fresh.
    const saved = c.now().toISOString();
    c.set('2026-04-01T00:00:00.000Z');
    await billing().chargeOneOff(p, { type: 'summary', points: 2, idempotencyKey: `c:${p.keyId}` });
    expect(await billing().monthlySpent(p.keyId)).toBe(2);
    c.set(saved);
    // A key without a limit reports null.
    expect(await billing().monthlySpent(principal().keyId)).toBeNull();
  });

  it('a key without account pool access draws only its allotment (budget_scope key_allotment)', async () => {
    const p = await realKey(t, { allowAccountPool: false });
    await billing().grantCredit({ accountId: p.accountId, points: 100, pool: 'account' });
    await billing().grantCredit({ accountId: p.accountId, points: 1, pool: 'key', keyId: p.keyId });
    const err = await refusal(billing().chargeOneOff(p, { type: 'summary', points: 2, idempotencyKey: `k:${p.keyId}` }));
    expect(err.details).toMatchObject({ budget_scope: 'key_allotment', remaining_budget: 1 });
  });

  it('publishes credit.low and credit.exhausted once per 24 h, re-armed when credit rises', async () => {
    const p = principal();
    const events: { topic: string; msg: unknown }[] = [];
    const offs = await Promise.all(
      ([CREDIT_LOW, CREDIT_EXHAUSTED] as const).map((topic) => t.app.deps.bus.subscribe(topic, (msg) => events.push({ topic, msg }))),
    );
    await billing().grantCredit({ accountId: p.accountId, points: 60, pool: 'account' });
    await billing().chargeOneOff(p, { type: 'summary', points: 5, idempotencyKey: `1:${p.keyId}` }); // 55: nothing
    await billing().chargeOneOff(p, { type: 'summary', points: 10, idempotencyKey: `2:${p.keyId}` }); // 45: low
    await billing().chargeOneOff(p, { type: 'summary', points: 5, idempotencyKey: `3:${p.keyId}` }); // 40: already sent
    await billing().chargeOneOff(p, { type: 'summary', points: 40, idempotencyKey: `4:${p.keyId}` }); // 0: exhausted
    await new Promise((r) => setTimeout(r, 50));
    const mine = () => events.filter((e) => (e.msg as { accountId: string }).accountId === p.accountId);
    expect(mine().map((e) => e.topic)).toEqual([CREDIT_LOW, CREDIT_EXHAUSTED]);
    expect(mine()[0]!.msg).toMatchObject({ balance: 45, threshold: 50 });
    expect(mine()[1]!.msg).toMatchObject({ balance: 0, cause: 'charge' });
    // Top-up re-arms, but within 24 h nothing is sent again.
    await billing().grantCredit({ accountId: p.accountId, points: 60, pool: 'account' });
    await billing().chargeOneOff(p, { type: 'summary', points: 20, idempotencyKey: `5:${p.keyId}` });
    await new Promise((r) => setTimeout(r, 50));
    expect(mine()).toHaveLength(2);
    c.advance(DAY);
    await billing().grantCredit({ accountId: p.accountId, points: 20, pool: 'account' }); // 60: re-armed
    await billing().chargeOneOff(p, { type: 'summary', points: 20, idempotencyKey: `6:${p.keyId}` }); // 40: low again
    await new Promise((r) => setTimeout(r, 50));
    expect(mine().map((e) => e.topic)).toEqual([CREDIT_LOW, CREDIT_EXHAUSTED, CREDIT_LOW]);
    for (const off of offs) off();
  });

  it('assertCanAfford checks a start against credit and the monthly limit without charging', async () => {
    const p = await realKey(t);
    await billing().grantCredit({ accountId: p.accountId, points: 1.5, pool: 'account' });
    await billing().assertCanAfford(p, 1.5);
    const short = await refusal(billing().assertCanAfford(p, 2));
    expect(short.details).toEqual({ budget_scope: 'account_credit', remaining_budget: 1.5, required: 2 });
    await t.app.deps.keys.updateKey(p.keyId, { monthlySpendLimit: 1 });
    const capped = await refusal(billing().assertCanAfford(p, 1.5));
    expect(capped.details).toEqual({ budget_scope: 'key_monthly_limit', remaining_budget: 1, required: 1.5 });
    await t.app.deps.keys.updateKey(p.keyId, { monthlySpendLimit: null });
    await t.app.deps.plans.setPlan(p.accountId, 'unlimited');
    await billing().assertCanAfford(p, 1000);
    expect(await billing().available(p)).toBe(1.5);
  });
});
