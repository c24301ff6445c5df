import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock, realKey, startBillingApp } from '../billing/support.js';
import { api, backends, type TestApp } from '../support/app.js';

/** A fresh account with two real keys. */
async function account(t: TestApp) {
  const k1 = await realKey(t, { name: 'first' });
  const k2 = await realKey(t, { name: 'second', accountId: k1.accountId });
  return { accountId: k1.accountId, k1, k2 };
}

const ERROR_OBJECT = (code: string, severity: string, details: unknown = expect.any(Object)) => ({
  data: {
    error_code: code,
    severity,
    message: expect.any(String),
    context: expect.any(String),
    request_id: expect.any(String),
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    details,
  },
});

describe.each(backends())('account endpoints /me/* (%s)', (backend) => {
  const c = clock('2026-03-10T12:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c);
  });
  afterAll(() => t?.close());

  const get = (path: string, key?: string) => api(t.url, 'GET', path, { key });
  const billing = () => t.app.deps.billing;

  it('every /me route needs a key (401 auth_missing_api_key / auth_invalid_api_key)', async () => {
    for (const path of ['/api/v1/me/plan', '/api/v1/me/credit-lots', '/api/v1/me/usage?page=0']) {
      const r = await get(path);
      expect(r.status).toBe(401);
      expect(r.body).toEqual(ERROR_OBJECT('auth_missing_api_key', 'fatal', null));
      const bad = await get(path, 'svc_0000000000000000000000000000000z');
      expect(bad.status).toBe(401);
      expect(bad.body.data.error_code).toBe('auth_invalid_api_key');
    }
  });

  it('GET /me/plan in credit mode: plan null, available_credit; works at zero balance', async () => {
    const a = await account(t);
    const zero = await get('/api/v1/me/plan', a.k1.key);
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({ data: { mode: 'credit', plan: null, available_credit: 0 } });
    await billing().grantCredit({ accountId: a.accountId, points: 12.5, pool: 'account' });
    await billing().grantCredit({ accountId: a.accountId, points: 3, pool: 'key', keyId: a.k1.keyId });
    await billing().grantCredit({ accountId: a.accountId, points: 100, pool: 'account', expiresAt: '2026-03-01T00:00:00Z' });
    expect((await get('/api/v1/me/plan', a.k1.key)).body.data.available_credit).toBe(15.5);
    expect((await get('/api/v1/me/plan', a.k2.key)).body.data.available_credit).toBe(12.5);
    await t.app.deps.keys.updateKey(a.k2.keyId, { allowAccountPool: false });
    expect((await get('/api/v1/me/plan', a.k2.key)).body.data.available_credit).toBe(0);
  });

  it('GET /me/plan unlimited without plan restrictions: features {all: true}, expired_at', async () => {
    const a = await account(t);
    await t.app.deps.plans.setPlan(a.accountId, { mode: 'unlimited', expiresAt: '2027-01-01T00:00:00Z' });
    const r = await get('/api/v1/me/plan', a.k1.key);
    expect(r.body).toEqual({ data: { mode: 'unlimited', plan: null, features: { all: true }, expired_at: '2027-01-01T00:00:00.000Z' } });
  });

  it('GET /me/plan plan-bound unlimited: plan, features (broadcast false), one-off features, all eleven limits', async () => {
    const a = await account(t);
    await t.app.deps.plans.setPlan(a.accountId, { mode: 'unlimited-plan', planName: 'standard', expiresAt: null });
    const usage = await billing().startUsage(a.k1, { type: 'recording' });
    for (let m = 0; m < 7; m++) await billing().charge(usage.id, { idempotencyKey: `m${m}`, points: 1, minutes: 1 });
    const r = await get('/api/v1/me/plan', a.k2.key);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      mode: 'unlimited',
      plan: { name: 'standard', expired_at: null },
      features: [
        { slug: 'transcribe', name: expect.any(String), included: true },
        { slug: 'translation', name: expect.any(String), included: true },
        { slug: 'multi_speaker', name: expect.any(String), included: true },
        { slug: 'multi_language', name: expect.any(String), included: false },
        { slug: 'multi_channel', name: expect.any(String), included: false },
        { slug: 'tts', name: expect.any(String), included: true },
        { slug: 'floating_subtitles', name: 'Floating subtitles', included: true },
        { slug: 'broadcast', name: expect.any(String), included: false },
      ],
      oneoff_features: [
        { slug: 'summary', name: expect.any(String), included: true },
        { slug: 'retranslate', name: expect.any(String), included: true },
        { slug: 'import', name: expect.any(String), included: true },
      ],
      limits: {
        daily_soft_limit_minutes: 240,
        daily_hard_limit_minutes: 300,
        max_concurrent_sessions: 2,
        daily_used_minutes: 7,
        max_transcription_languages: 2,
        max_session_minutes: 180,
        rolling_limit_minutes: 1200,
        rolling_used_minutes: 7,
        auth_total_limit_minutes: null,
        auth_total_used_minutes: null,
        restriction_recovery_at: null,
      },
    });
    // Unlimited usage rows are 0 points.
    const u = await get('/api/v1/me/usage', a.k1.key);
    expect(u.body.data[0]).toMatchObject({ type: 'recording', points: 0, in_progress: true, ended_at: null });
  });

  it('an expired unlimited authorization falls back to credit mode', async () => {
    const a = await account(t);
    await t.app.deps.plans.setPlan(a.accountId, { mode: 'unlimited', expiresAt: '2026-03-01T00:00:00Z' });
    expect((await get('/api/v1/me/plan', a.k1.key)).body.data).toEqual({ mode: 'credit', plan: null, available_credit: 0 });
  });

  it('GET /me/credit-lots: only lots with credit left and unexpired, soonest expiry first, never-expiring last', async () => {
    const a = await account(t);
    const b = billing();
    await b.grantCredit({ accountId: a.accountId, points: 10, pool: 'account', expiresAt: null });
    await b.grantCredit({ accountId: a.accountId, points: 20, pool: 'account', expiresAt: '2026-05-01T00:00:00Z' });
    await b.grantCredit({ accountId: a.accountId, points: 5, pool: 'key', keyId: a.k1.keyId, expiresAt: '2026-06-01T00:00:00Z' });
    await b.grantCredit({ accountId: a.accountId, points: 7, pool: 'key', keyId: a.k2.keyId });
    await b.grantCredit({ accountId: a.accountId, points: 30, pool: 'account', expiresAt: '2026-03-05T00:00:00Z' }); // expired
    await b.grantCredit({ accountId: a.accountId, points: 1, pool: 'account', expiresAt: '2026-04-01T00:00:00Z' });
    // Use up the April lot: it disappears from the list.
    await b.grantCredit({ accountId: a.accountId, points: 1, pool: 'key', keyId: a.k1.keyId, expiresAt: '2026-03-20T00:00:00Z' });
    await b.chargeOneOff(a.k1, { type: 'summary', points: 2, idempotencyKey: `x:${a.k1.keyId}` }); // key 1 (Mar 20) + key 5→4 (Jun)
    const r = await get('/api/v1/me/credit-lots', a.k1.key);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { pool: 'account', remaining_points: 1, expires_at: '2026-04-01T00:00:00.000Z', granted_at: expect.any(String) },
      { pool: 'account', remaining_points: 20, expires_at: '2026-05-01T00:00:00.000Z', granted_at: expect.any(String) },
      { pool: 'key', remaining_points: 4, expires_at: '2026-06-01T00:00:00.000Z', granted_at: expect.any(String) },
      { pool: 'account', remaining_points: 10, expires_at: null, granted_at: expect.any(String) },
    ]);
    // Key 2 sees its own allotment, not key 1's.
    const r2 = await get('/api/v1/me/credit-lots', a.k2.key);
    expect(r2.body.data.filter((l: { pool: string }) => l.pool === 'key')).toEqual([
      { pool: 'key', remaining_points: 7, expires_at: null, granted_at: expect.any(String) },
    ]);
    // Without allow_account_pool only the allotment shows.
    await t.app.deps.keys.updateKey(a.k2.keyId, { allowAccountPool: false });
    expect((await get('/api/v1/me/credit-lots', a.k2.key)).body.data).toHaveLength(1);
    // Unlimited without restrictions: account lots visible; plan-bound unlimited: [].
    await t.app.deps.plans.setPlan(a.accountId, 'unlimited');
    expect((await get('/api/v1/me/credit-lots', a.k2.key)).body.data).toHaveLength(4);
    await t.app.deps.plans.setPlan(a.accountId, 'unlimited-plan');
    expect((await get('/api/v1/me/credit-lots', a.k1.key)).body).toEqual({ data: [] });
  });

  it('GET /me/usage: newest first, meta, every key of the account sees them, empty past the last page', async () => {
    const a = await account(t);
    const b = billing();
    await b.grantCredit({ accountId: a.accountId, points: 1000, pool: 'account' });
    const task = randomUUID();
    for (let i = 0; i < 23; i++) {
      c.advance(1000);
      await b.chargeOneOff(i % 2 ? a.k1 : a.k2, {
        type: i === 22 ? 'summary_translate' : 'summary',
        taskId: task,
        points: 1.5,
        idempotencyKey: `u${i}:${a.accountId}`,
      });
    }
    c.advance(1000);
    const rec = await b.startUsage(a.k1, { type: 'recording' });
    await b.charge(rec.id, { idempotencyKey: 'm0', points: 2, minutes: 1 });
    const startedAt = c.now().toISOString();
    c.advance(90_000);
    await b.charge(rec.id, { idempotencyKey: 'm1', points: 2, minutes: 1 });

    const first = await get('/api/v1/me/usage', a.k2.key);
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ current_page: 1, last_page: 2, per_page: 20, total: 24 });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.data[0]).toEqual({
      task_id: null,
      type: 'recording',
      points: 4,
      in_progress: true,
      refunded: false,
      refund_reason: null,
      occurred_at: startedAt,
      ended_at: null,
    });
    expect(first.body.data[1]).toMatchObject({ type: 'summary_translate', task_id: task, points: 1.5, in_progress: false });
    expect(first.body.data[1].ended_at).toBe(first.body.data[1].occurred_at);

    c.advance(1000);
    await b.endUsage(rec.id);
    await b.refund(rec.id, 'manual');
    const after = await get('/api/v1/me/usage?per_page=5&page=1', a.k1.key);
    expect(after.body.meta).toEqual({ current_page: 1, last_page: 5, per_page: 5, total: 24 });
    expect(after.body.data[0]).toMatchObject({
      type: 'recording',
      points: 0,
      refunded: true,
      refund_reason: 'manual',
      in_progress: false,
      ended_at: c.now().toISOString(),
    });

    const past = await get('/api/v1/me/usage?page=7&per_page=5', a.k1.key);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], meta: { current_page: 7, last_page: 5, per_page: 5, total: 24 } });
    const max = await get('/api/v1/me/usage?page=100000', a.k1.key);
    expect(max.status).toBe(200);
    expect(max.body.data).toEqual([]);
  });

  it('GET /me/usage: 422 validation_failed on out-of-range or non-integer paging', async () => {
    const a = await account(t);
    for (const q of [
      'page=0',
      'page=100001',
      'per_page=4',
      'per_page=21',
      'page=1.5',
      'per_page=abc',
      'page=',
      'page=-1',
      'per_page=10.0001',
      // The fuzzer's seed 1905 found a 500 here once the paging parameters became optional.
      'per_page=1e309',
      'page=1e309',
      'page=-1e309',
    ]) {
      const r = await get(`/api/v1/me/usage?${q}`, a.k1.key);
      expect(r.status, q).toBe(422);
      expect(r.body, q).toEqual(ERROR_OBJECT('validation_failed', 'error'));
    }
    const fine = await get('/api/v1/me/usage?page=2&per_page=5', a.k1.key);
    expect(fine.body).toEqual({ data: [], meta: { current_page: 2, last_page: 1, per_page: 5, total: 0 } });
  });

  it('the OpenAPI document describes the billing routes', async () => {
    const r = await get('/api/v1/openapi.json');
    for (const p of ['/api/v1/me/plan', '/api/v1/me/credit-lots', '/api/v1/me/usage', '/api/v1/auth/ticket'])
      expect(Object.keys(r.body.paths)).toContain(p);
    expect(JSON.stringify(r.body.paths['/api/v1/me/usage'].get.parameters)).toContain('per_page');
  });
});
