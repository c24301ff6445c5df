import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock, realKey, startBillingApp } from '../billing/support.js';
import { api, backends, type TestApp } from '../support/app.js';

describe.each(backends())('POST /api/v1/auth/ticket and ticket consumption (%s)', (backend) => {
  const c = clock('2026-03-10T23:30:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c);
  });
  afterAll(() => t?.close());

  const newKey = () => realKey(t);
  const ticket = (key?: string) => api(t.url, 'POST', '/api/v1/auth/ticket', { key });

  it('issues a 32-character ticket valid 60 seconds, recording the key', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const r = await ticket(k.key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { ticket: expect.stringMatching(/^[A-Za-z0-9]{32}$/), expires_in: 60 } });
    const used = await t.app.deps.tickets.consumeTicket(r.body.data.ticket);
    expect(used).toEqual({ ok: true, accountId: k.accountId, keyId: k.keyId });
  });

  it('is single use: the second use is ticket_already_used, an unknown one ticket_invalid', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const { ticket: tk } = (await ticket(k.key)).body.data;
    expect((await t.app.deps.tickets.consumeTicket(tk)).ok).toBe(true);
    expect(await t.app.deps.tickets.consumeTicket(tk)).toEqual({ ok: false, reason: 'ticket_already_used' });
    expect(await t.app.deps.tickets.consumeTicket('A'.repeat(32))).toEqual({ ok: false, reason: 'ticket_invalid' });
  });

  it('consumption is atomic: of many concurrent uses exactly one wins', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const { ticket: tk } = (await ticket(k.key)).body.data;
    const results = await Promise.all(Array.from({ length: 8 }, () => t.app.deps.tickets.consumeTicket(tk)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'ticket_already_used')).toBe(true);
  });

  it('expires after 60 seconds (ticket_expired), also once swept', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const a = (await ticket(k.key)).body.data.ticket;
    const b = (await ticket(k.key)).body.data.ticket;
    c.advance(60_000);
    expect(await t.app.deps.tickets.consumeTicket(a)).toEqual({ ok: false, reason: 'ticket_expired' });
    await t.app.deps.tickets.store.sweep(c.now());
    expect(await t.app.deps.tickets.consumeTicket(b)).toEqual({ ok: false, reason: 'ticket_expired' });
    expect(await t.app.deps.tickets.consumeTicket(a)).toEqual({ ok: false, reason: 'ticket_expired' });
    // Tombstones are forgotten after an hour: then the ticket is simply invalid.
    c.advance(3_600_000);
    await t.app.deps.tickets.store.sweep(c.now());
    expect(await t.app.deps.tickets.consumeTicket(b)).toEqual({ ok: false, reason: 'ticket_invalid' });
  });

  it('tickets are stored hashed', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const { ticket: tk } = (await ticket(k.key)).body.data;
    const rows = await t.app.deps.database.db.selectFrom('tickets').select('ticket_hash').where('key_id', '=', k.keyId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.ticket_hash).not.toContain(tk);
    expect(rows[0]!.ticket_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts an empty JSON object as the (absent) body', async () => {
    const k = await newKey();
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 5, pool: 'account' });
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data.ticket).toHaveLength(32);
  });

  it('401 without a key', async () => {
    const r = await ticket();
    expect(r.status).toBe(401);
    expect(r.body.data.error_code).toBe('auth_missing_api_key');
  });

  it('402 auth_insufficient_credit at zero balance in credit mode; unlimited authorizations need no credit', async () => {
    const k = await newKey();
    const r = await ticket(k.key);
    expect(r.status).toBe(402);
    expect(r.body).toEqual({
      data: {
        error_code: 'auth_insufficient_credit',
        severity: 'fatal',
        message: expect.any(String),
        context: 'billing',
        request_id: expect.any(String),
        timestamp: expect.any(String),
        details: { available_credit: 0 },
      },
    });
    expect(await t.app.deps.database.db.selectFrom('tickets').select('ticket_hash').where('key_id', '=', k.keyId).execute()).toEqual([]);
    await t.app.deps.plans.setPlan(k.accountId, 'unlimited');
    expect((await ticket(k.key)).status).toBe(200);
  });

  it('402 plan_daily_limit_reached once the daily hard limit is used, with the recovery time; free again next day', async () => {
    const k = await newKey();
    await t.app.deps.plans.setPlan(k.accountId, { mode: 'unlimited-plan', planName: 'trial' });
    const usage = await t.app.deps.billing.startUsage(k, { type: 'recording' });
    for (let m = 0; m < 59; m++) await t.app.deps.billing.charge(usage.id, { idempotencyKey: `m${m}`, points: 1, minutes: 1 });
    expect((await ticket(k.key)).status).toBe(200);
    await t.app.deps.billing.charge(usage.id, { idempotencyKey: 'm59', points: 1, minutes: 1 });
    const r = await ticket(k.key);
    expect(r.status).toBe(402);
    expect(r.body.data).toMatchObject({
      error_code: 'plan_daily_limit_reached',
      severity: 'error',
      details: { limit: 'daily_hard_limit_minutes', restriction_recovery_at: '2026-03-12T00:00:00.000Z' },
    });
    const plan = await api(t.url, 'GET', '/api/v1/me/plan', { key: k.key });
    expect(plan.status).toBe(200);
    expect(plan.body.data.limits).toMatchObject({ daily_used_minutes: 60, restriction_recovery_at: '2026-03-12T00:00:00.000Z' });
    c.set('2026-03-12T00:00:01.000Z');
    expect((await ticket(k.key)).status).toBe(200);
  });
});
