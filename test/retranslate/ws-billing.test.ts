/**
 * The WebSocket `retranslate` action is charged like the SSE retranslation: per sentence for
 * named sids, the full-text price for all finals, plan_feature_not_allowed on a plan without
 * the one-off feature, auth_quota_exceeded when the key's budget cannot cover it; refusals
 * keep the session running and charge nothing. Real PocketSphinx on jfk.flac, real Apertium.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  startLiveApp,
  startSession,
  streamPcm,
  ticketAndKey,
  vt,
  waitFor,
} from '../realtime/support.js';
import { api, backends, type TestApp } from '../support/app.js';

describe.each(backends())('WebSocket retranslate billing (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, {
      env: {
        PARLEY_PRICE_RECORDING_PER_MIN: '1',
        PARLEY_PRICE_TRANSLATION_PER_MIN_PER_LANG: '0.5',
        PARLEY_PRICE_RETRANSLATE: '3',
        PARLEY_PRICE_RETRANSLATE_SENTENCE: '0.5',
      },
    });
  }, 60_000);
  afterAll(() => t?.close());

  const usage = async (key: string) =>
    (
      (await api(t.url, 'GET', '/api/v1/me/usage?per_page=20', { key })).body.data as Array<{
        type: string;
        points: number;
        refunded: boolean;
      }>
    )
      .filter((u) => u.type === 'retranslate')
      .map((u) => [u.points, u.refunded]);
  const credit = async (key: string) => (await api(t.url, 'GET', '/api/v1/me/plan', { key })).body.data.available_credit;

  it.skipIf(!existsSync(JFK))(
    'one sentence at the per-sentence price, all finals at the full-text price',
    async () => {
      const k = await ticketAndKey(t);
      const cl = await connect(t, [`ticket.${k.ticket}`]);
      await startSession(cl, { translation_languages: ['es'] });
      await streamPcm(cl, jfkPcm().subarray(0, 32_000 * 6), 2);
      await waitFor(cl, (ms) => ms.some((m) => m.data?.action === 'translation'), 30_000);
      const first = cl.messages.find((m) => m.data?.action === 'translation')!.data.sid as number;
      expect(first).toBe(1);
      expect(await credit(k.key)).toBe(48.5); // 50 granted, minute 0 at 1 + 0.5

      cl.send(vt('retranslate', { sid: first }));
      expect((await event(cl, 'retranslate_done', 15_000)).data).toMatchObject({ sids: [1], total_updated: 1, failed: 0 });
      expect(await usage(k.key)).toEqual([[0.5, false]]);
      cl.send(vt('retranslate', {}));
      expect((await event(cl, 'retranslate_done', 15_000)).data).toMatchObject({ sids: null, failed: 0 });
      expect((await usage(k.key)).sort()).toEqual([
        [0.5, false],
        [3, false],
      ]);
      expect(await credit(k.key)).toBe(45);
      cl.send(vt('stop'));
      await event(cl, 'task_complete', 60_000);
      cl.ws.close();
    },
    120_000,
  );

  it('plan_feature_not_allowed and auth_quota_exceeded: nothing charged, the session goes on', async () => {
    const trial = await ticketAndKey(t);
    await t.app.deps.plans.setPlan(trial.accountId, { mode: 'unlimited-plan', planName: 'trial', expiresAt: null });
    const cl = await connect(t, [`ticket.${trial.ticket}`]);
    await startSession(cl, { translation_languages: ['es'] });
    cl.send(vt('retranslate', {}));
    expect((await errorWith(cl, 'plan_feature_not_allowed')).data).toMatchObject({ details: { field: 'retranslate', plan: 'trial' } });
    // The session goes on: the next action is answered.
    cl.send(vt('set_name', { name: 'still here' }));
    expect((await event(cl, 'name_updated')).data).toMatchObject({ name: 'still here' });
    expect(await usage(trial.key)).toEqual([]);
    cl.ws.close();

    const limited = await ticketAndKey(t, { monthlySpendLimit: 2 });
    const c2 = await connect(t, [`ticket.${limited.ticket}`]);
    await startSession(c2, { translation_languages: ['es'] });
    c2.send(vt('retranslate', {}));
    expect((await errorWith(c2, 'auth_quota_exceeded')).data).toMatchObject({ details: { budget_scope: 'key_monthly_limit' } });
    expect(await usage(limited.key)).toEqual([]);
    expect(await credit(limited.key)).toBe(48.5);
    c2.send(vt('stop'));
    await event(c2, 'task_complete', 60_000);
    c2.ws.close();
  }, 120_000);
});
