/**
 * Credit events end to end (billing charges publish on the bus, the webhook service fans out
 * to every active key with a URL, at most once per 24 h per account, again after credit rises),
 * and webhook.verify deciding whether a key-level URL is saved.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signer.js';
import { backends, startTestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { type Received, startReceiver } from './receiver.js';

describe.each(backends())('credit webhooks and URL verification (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const receiver = async (answer?: (r: Received, res: ServerResponse) => void) => {
    const rx = await startReceiver(answer);
    cleanup.push(() => rx.close());
    return rx;
  };

  it('credit.low and credit.exhausted: one copy per active key with a URL, at most once per 24 h, re-armed by credit', async () => {
    let now = new Date('2026-11-01T10:00:00Z');
    const t = await startTestApp({ backend, now: () => now });
    cleanup.push(() => t.close());
    const { keys, billing } = t.app.deps;
    const [r1, r2, r3, rCallback] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const k1 = await keys.createKey({ webhookUrl: r1.url });
    const k2 = await keys.createKey({ accountId: k1.account_id, webhookUrl: r2.url });
    const k3 = await keys.createKey({ accountId: k1.account_id, webhookUrl: r3.url });
    await keys.createKey({ accountId: k1.account_id }); // no URL: nothing
    await keys.deleteKey(k3.key_id); // deleted: nothing
    const p = { accountId: k1.account_id, keyId: k1.key_id };
    const credit = (r: { received: Received[] }) => r.received.filter((x) => x.json.event.startsWith('credit.'));
    // The clock jumps below; jumping while a delivery job is still running would make its lease
    // look expired and the queue would (rightly, for a dead worker) run it again.
    const settled = () =>
      until(
        async () =>
          (await t.app.deps.database.db.selectFrom('jobs').select('id').where('status', 'in', ['pending', 'running']).execute()).length ===
          0,
        5000,
        'idle queue',
      );
    let n = 0;
    const charge = (points: number) => billing.chargeOneOff(p, { type: 'summary', points, idempotencyKey: `c${++n}` });

    await billing.grantCredit({ accountId: p.accountId, points: 60, pool: 'account' });
    await charge(15.45); // 44.55 < 50
    await until(() => credit(r1).length === 1 && credit(r2).length === 1, 5000, 'credit.low to both keys');
    for (const [r, k] of [
      [r1, k1],
      [r2, k2],
    ] as const) {
      const h = credit(r)[0]!;
      expect(h.json.event).toBe('credit.low');
      expect(h.json.data).toEqual({ balance: '44.5', threshold: '50.0' });
      expect(
        verifyWebhookSignature(k.webhook_secret, String(h.headers['x-svc-timestamp']), h.body, String(h.headers['x-svc-signature'])),
      ).toBe(true);
    }
    expect(credit(r1)[0]!.json.delivery_id).not.toBe(credit(r2)[0]!.json.delivery_id);

    await charge(5); // still low: no second credit.low
    await settled();
    now = new Date(now.getTime() + 25 * 3600_000);
    await charge(5); // 24 h later but not re-armed (credit has not risen)
    await charge(34.55); // 0: credit.exhausted once
    await until(() => credit(r1).length === 2 && credit(r2).length === 2, 5000, 'credit.exhausted');
    expect(credit(r1)[1]!.json).toMatchObject({ event: 'credit.exhausted', data: { balance: '0.0' } });

    await billing.grantCredit({ accountId: p.accountId, points: 100, pool: 'account' }); // re-arms both
    await settled();
    now = new Date(now.getTime() + 3600_000);
    await charge(60); // 40 < 50, 26 h after the last credit.low and re-armed: sent
    await until(() => credit(r1).length === 3, 5000, 'credit.low after credit increase');
    expect(credit(r1)[2]!.json).toMatchObject({ event: 'credit.low', data: { balance: '40.0', threshold: '50.0' } });
    await billing.grantCredit({ accountId: p.accountId, points: 100, pool: 'account' }); // re-armed, but within 24 h
    await charge(100);
    await new Promise((r) => setTimeout(r, 700));
    expect(credit(r1)).toHaveLength(3);
    expect(credit(r2)).toHaveLength(3);
    expect(credit(r3)).toHaveLength(0);
    expect(rCallback.received).toHaveLength(0);
  });

  it('saves a key-level URL only after a 2xx within the verification limit', async () => {
    const t = await startTestApp({ backend, env: { PARLEY_WEBHOOK_VERIFY_TIMEOUT_MS: '400' } });
    cleanup.push(() => t.close());
    const { keys } = t.app.deps;
    const good = await receiver((_r, res) => res.writeHead(204).end());
    const failing = await receiver((_r, res) => res.writeHead(500).end());
    const redirect = await receiver((_r, res) => res.writeHead(302, { Location: good.url }).end());
    const slow = await receiver((_r, res) => void setTimeout(() => res.end('late'), 1500).unref());

    const key = await keys.createKey({});
    for (const [rx, reason] of [
      [failing, 'HTTP 500'],
      [redirect, 'redirect 302 not followed'],
      [slow, 'no answer within 400 ms'],
    ] as const) {
      const err = await keys.updateKey(key.key_id, { webhookUrl: rx.url }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'validation_failed', details: { field: 'webhook_url', reason } });
      expect((await keys.requireKey(key.key_id)).webhook_url).toBeNull();
      expect(rx.received).toHaveLength(1);
      const v = rx.received[0]!;
      expect(v.json).toMatchObject({ event: 'webhook.verify', data: { key_id: key.key_id } });
      expect(v.headers['x-svc-event']).toBe('webhook.verify');
      expect(
        verifyWebhookSignature(key.webhook_secret, String(v.headers['x-svc-timestamp']), v.body, String(v.headers['x-svc-signature'])),
      ).toBe(true);
    }
    expect(good.received).toHaveLength(0); // the redirect was not followed
    await expect(keys.createKey({ webhookUrl: failing.url })).rejects.toMatchObject({ code: 'validation_failed' });

    const saved = await keys.updateKey(key.key_id, { webhookUrl: good.url });
    expect(saved.webhook_url).toBe(good.url);
    expect(good.received.map((r) => r.json.event)).toEqual(['webhook.verify']);
  });

  it('refuses a private key-level URL when private targets are not allowed', async () => {
    const t = await startTestApp({ backend, env: { PARLEY_WEBHOOK_ALLOW_PRIVATE: '0' } });
    cleanup.push(() => t.close());
    const rx = await receiver();
    const err = await t.app.deps.keys.createKey({ webhookUrl: rx.url }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'validation_failed', details: { field: 'webhook_url' } });
    expect(String((err as Error).message)).toMatch(/non-public address/);
    expect(rx.received).toHaveLength(0);
  });
});
