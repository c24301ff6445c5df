/**
 * One notification against a receiver that misbehaves in every way a real one does, one way
 * per attempt: it closes the connection without answering, answers 500, answers too late,
 * redirects, and at last answers 200. The notification is delivered exactly once with a 2xx
 * (five attempts, the spec's maximum, all with the same delivery_id and a fresh signature),
 * the attempt log names each failure, and the redirect target never receives it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signer.js';
import { backends, startTestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

describe.each(backends())('misbehaving webhook receivers (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('closes, 500, times out, redirects, then 200: delivered once on the fifth attempt', async () => {
    const elsewhere = await startReceiver();
    cleanup.push(() => elsewhere.close());
    let attempt = 0;
    const rx = await startReceiver((r, res) => {
      if (r.json?.event === 'webhook.verify') {
        res.end('ok');
        return;
      }
      attempt++;
      if (attempt === 1) res.socket?.destroy();
      else if (attempt === 2) res.writeHead(500).end('boom');
      else if (attempt === 3) setTimeout(() => res.end('late'), 1500).unref();
      else if (attempt === 4) res.writeHead(307, { Location: elsewhere.url }).end();
      else res.writeHead(200).end('ok');
    });
    cleanup.push(() => rx.close());
    const t = await startTestApp({
      backend,
      env: { PARLEY_WEBHOOK_RETRY_SCALE: '0.005', PARLEY_WEBHOOK_TIMEOUT_MS: '400' },
    });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ webhookUrl: rx.url });
    const id = await t.app.deps.webhooks.notify('credit.low', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { balance: '10.0', threshold: '50.0' },
    });
    await until(async () => (await t.app.deps.webhooks.describe(id!))?.delivery.status === 'delivered', 20_000, 'delivered');
    await new Promise((r) => setTimeout(r, 500)); // nothing after the success
    const log = await t.app.deps.webhooks.describe(id!);
    expect(log?.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, null],
      [2, 500],
      [3, null],
      [4, 307],
      [5, 200],
    ]);
    expect(log?.attempts[2]?.error).toBe('no answer within 400 ms');
    expect(log?.attempts[3]?.error).toBe('redirect 307 not followed');
    expect(log?.attempts[0]?.error).toBeTruthy();
    const hooks = rx.received.filter((r) => r.json?.event === 'credit.low');
    expect(hooks).toHaveLength(5);
    expect(new Set(hooks.map((r) => r.json.delivery_id))).toEqual(new Set([id]));
    for (const r of hooks) {
      expect(
        verifyWebhookSignature(key.webhook_secret!, r.headers['x-svc-timestamp'] as string, r.body, r.headers['x-svc-signature'] as string),
      ).toBe(true);
    }
    expect(elsewhere.received).toHaveLength(0);
  }, 40_000);
});
