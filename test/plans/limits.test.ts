import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_KEY_POLICY } from '../../src/billing/key-policy.js';
import { dayBounds } from '../../src/plans/day.js';
import { sessionBudget } from '../../src/plans/limits.js';
import type { ActivePlan } from '../../src/plans/service.js';
import type { Principal } from '../../src/platform/auth/types.js';
import { clock, principal, refusal, startBillingApp } from '../billing/support.js';
import { backends, type TestApp } from '../support/app.js';

const CATALOGUE = JSON.stringify({
  tight: {
    features: { transcribe: true, broadcast: true },
    oneoff_features: { summary: true },
    limits: {
      daily_soft_limit_minutes: 3,
      daily_hard_limit_minutes: 5,
      max_concurrent_sessions: 1,
      max_transcription_languages: 2,
      max_session_minutes: 4,
      rolling_limit_minutes: 8,
      auth_total_limit_minutes: 12,
    },
  },
});

describe('plan day in a time zone', () => {
  it('runs from local midnight to local midnight, DST included', () => {
    expect(dayBounds(new Date('2026-03-10T20:00:00Z'), 'Asia/Taipei')).toEqual({
      start: new Date('2026-03-10T16:00:00Z'),
      end: new Date('2026-03-11T16:00:00Z'),
    });
    // 8 March 2026 is 23 hours long in New York.
    expect(dayBounds(new Date('2026-03-08T12:00:00Z'), 'America/New_York')).toEqual({
      start: new Date('2026-03-08T05:00:00Z'),
      end: new Date('2026-03-09T04:00:00Z'),
    });
  });
});

describe.each(backends())('limits calculator (%s)', (backend) => {
  const c = clock('2026-03-10T15:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c, {
      PARLEY_PLANS: CATALOGUE,
      PARLEY_TIME_ZONE: 'Asia/Taipei',
      PARLEY_PLAN_ROLLING_WINDOW_DAYS: '2',
    });
  });
  afterAll(() => t?.close());

  async function planned(): Promise<{ p: Principal; plan: Extract<ActivePlan, { mode: 'unlimited-plan' }> }> {
    const p = principal();
    const plan = await t.app.deps.plans.setPlan(p.accountId, { mode: 'unlimited-plan', planName: 'tight' });
    if (plan.mode !== 'unlimited-plan') throw new Error('plan not set');
    return { p, plan };
  }

  async function minutes(p: Principal, n: number) {
    const u = await t.app.deps.billing.startUsage(p, { type: 'recording' });
    for (let i = 0; i < n; i++) await t.app.deps.billing.charge(u.id, { idempotencyKey: `m${i}`, points: 1, minutes: 1 });
    return t.app.deps.billing.endUsage(u.id);
  }

  it('catalogue from PARLEY_PLANS: broadcast is never included', async () => {
    const { plan } = await planned();
    expect(plan.plan.features.broadcast).toBe(false);
    expect(plan.plan.features.transcribe).toBe(true);
    expect(t.app.deps.plans.catalogue.standard).toBeDefined();
  });

  it('daily soft and hard limits count minutes of the local day (PARLEY_TIME_ZONE)', async () => {
    c.set('2026-03-10T15:00:00.000Z'); // 23:00 in Taipei
    const { p, plan } = await planned();
    const limits = t.app.deps.limits;
    await minutes(p, 3);
    let r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.view.daily_used_minutes).toBe(3);
    expect(r.dailySoftReached).toBe(true);
    expect(r.blocked).toBeNull();
    expect(r.remainingMinutes).toBe(0); // the soft limit stops a running recording
    expect(sessionBudget(r, 1)).toBe(0);
    expect(sessionBudget(null, 100)).toBeNull();
    await minutes(p, 2);
    r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.blocked).toBe('daily_hard_limit_minutes');
    expect(r.view.restriction_recovery_at).toBe('2026-03-10T16:00:00.000Z'); // Taipei midnight
    const rest = await refusal(limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'rest' }, c.now()));
    expect(rest.code).toBe('plan_daily_limit_reached');
    expect(rest.status).toBe(402);
    const ws = await refusal(limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'websocket' }, c.now()));
    expect(ws.code).toBe('daily_limit_reached');
    c.set('2026-03-10T16:00:00.000Z');
    r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.view.daily_used_minutes).toBe(0);
    expect(r.view.rolling_used_minutes).toBe(5);
    expect(r.blocked).toBeNull();
  });

  it('rolling window: blocked until enough minutes leave the window; total limit never recovers', async () => {
    c.set('2026-03-20T01:00:00.000Z');
    const { p, plan } = await planned();
    const limits = t.app.deps.limits;
    await minutes(p, 4); // day 1
    c.advance(86_400_000);
    await minutes(p, 4); // day 2: rolling 8 of 8
    let r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.blocked).toBe('rolling_limit_minutes');
    expect(r.view.rolling_used_minutes).toBe(8);
    // The first minute charged on day 1 leaves the 2-day window 2 days after it was charged.
    expect(r.view.restriction_recovery_at).toBe('2026-03-22T01:00:00.000Z');
    c.set('2026-03-22T01:00:00.001Z');
    r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.blocked).toBeNull();
    await minutes(p, 4);
    c.advance(86_400_000);
    r = await limits.evaluate(p.accountId, plan, c.now());
    expect(r.view.auth_total_used_minutes).toBe(12);
    expect(r.blocked).toBe('auth_total_limit_minutes');
    expect(r.view.restriction_recovery_at).toBeNull();
  });

  it('too many transcription languages and the concurrency caps (plan and key), counted from live usage rows', async () => {
    c.set('2026-04-01T03:00:00.000Z');
    const { p, plan } = await planned();
    const limits = t.app.deps.limits;
    const langs = await refusal(
      limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'websocket', transcriptionLanguages: 3 }, c.now()),
    );
    expect(langs.code).toBe('too_many_languages');
    expect(langs.details).toEqual({ max: 2, received: 3 });
    await limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'websocket', session: true }, c.now());
    const live = await t.app.deps.billing.startUsage(p, { type: 'recording' });
    const conc = await refusal(limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'websocket', session: true }, c.now()));
    expect(conc.code).toBe('concurrency_limit_reached');
    expect(conc.details).toEqual({ max: 1, active: 1 });
    await t.app.deps.billing.endUsage(live.id);
    await limits.assertCanStart(p, plan, OPEN_KEY_POLICY, { transport: 'websocket', session: true }, c.now());

    // Credit mode: the key's own cap and the global 10-language cap.
    const q = principal();
    const credit: ActivePlan = { mode: 'credit' };
    const key = { ...OPEN_KEY_POLICY, maxConcurrentSessions: 1 };
    await t.app.deps.billing.startUsage(q, { type: 'broadcast' });
    expect((await refusal(limits.assertCanStart(q, credit, key, { transport: 'websocket', session: true }, c.now()))).code).toBe(
      'concurrency_limit_reached',
    );
    const many = await refusal(
      limits.assertCanStart(q, credit, OPEN_KEY_POLICY, { transport: 'websocket', transcriptionLanguages: 11 }, c.now()),
    );
    expect(many.details).toEqual({ max: 10, received: 11 });
  });
});

describe('session budget', () => {
  it('is the smaller of the remaining plan minutes and max_session_minutes less the session so far', () => {
    const view = {
      daily_soft_limit_minutes: 100,
      daily_hard_limit_minutes: 120,
      max_concurrent_sessions: null,
      max_transcription_languages: null,
      max_session_minutes: 30,
      rolling_limit_minutes: null,
      auth_total_limit_minutes: null,
      max_stt_streams: null,
      daily_used_minutes: 10,
      rolling_used_minutes: null,
      auth_total_used_minutes: null,
      restriction_recovery_at: null,
    };
    expect(sessionBudget({ view, blocked: null, dailySoftReached: false, remainingMinutes: 90 }, 12)).toBe(18);
    expect(sessionBudget({ view, blocked: null, dailySoftReached: false, remainingMinutes: 5 }, 12)).toBe(5);
    expect(
      sessionBudget({ view: { ...view, max_session_minutes: null }, blocked: null, dailySoftReached: false, remainingMinutes: null }, 12),
    ).toBeNull();
  });
});
