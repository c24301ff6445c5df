/**
 * Webhook delivery on real receivers (port 0), on every backend: signature and headers, the
 * retry schedule (scaled by PARLEY_WEBHOOK_RETRY_SCALE, same code path), redirects and slow
 * answers as failures, callback_url precedence, deleted keys, and a restart with a queued delivery.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { verifyWebhookSignature } from '../../src/webhooks/signer.js';
import { backends, createPgSchema, dropPgSchema, startTestApp, type TestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { type Receiver, startReceiver } from './receiver.js';

const SCALE = 0.005; // 10/30/90/270 s -> 50/150/450/1350 ms

describe.each(backends())('webhook delivery (%s)', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function setup(env: Record<string, string> = {}, answer?: Parameters<typeof startReceiver>[0]) {
    const rx = await startReceiver(answer);
    cleanup.push(() => rx.close());
    const t = await startTestApp({ backend, env: { PARLEY_WEBHOOK_RETRY_SCALE: String(SCALE), ...env } });
    cleanup.push(() => t.close());
    return { rx, t };
  }

  /** A key whose URL answers 2xx to webhook.verify, then `answer` for notifications. */
  async function keyWith(t: TestApp, rx: Receiver) {
    return t.app.deps.keys.createKey({ webhookUrl: rx.url });
  }

  it('signs with the key secret, sends the exact headers and envelope', async () => {
    const { rx, t } = await setup();
    const key = await keyWith(t, rx);
    expect(rx.received.map((r) => r.json.event)).toEqual(['webhook.verify']);
    const data = { import_id: 'i-1', task_id: 't-1', name: 'Board meeting', duration_ms: 61000 };
    const id = await t.app.deps.webhooks.notify('import.completed', { accountId: key.account_id, keyId: key.key_id, data });
    await until(() => rx.received.length === 2, 5000, 'delivery');
    const r = rx.received[1]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('SVC-Webhook/1.0');
    expect(r.headers['x-svc-event']).toBe('import.completed');
    expect(r.headers['x-svc-delivery-id']).toBe(id);
    const ts = String(r.headers['x-svc-timestamp']);
    expect(ts).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    expect(verifyWebhookSignature(key.webhook_secret, ts, r.body, String(r.headers['x-svc-signature']))).toBe(true);
    expect(verifyWebhookSignature('x'.repeat(64), ts, r.body, String(r.headers['x-svc-signature']))).toBe(false);
    expect(r.json).toEqual({ event: 'import.completed', timestamp: expect.any(String), delivery_id: id, data });
    expect(new Date(r.json.timestamp).toISOString()).toBe(r.json.timestamp);
    const other = await t.app.deps.webhooks.notify('import.completed', { accountId: key.account_id, keyId: key.key_id, data });
    expect(other).not.toBe(id);
  });

  it('retries a failing receiver on the schedule, at most 5 attempts, same delivery_id, each signed afresh', async () => {
    const { rx, t } = await setup({}, (r, res) => {
      res.statusCode = r.json?.event === 'webhook.verify' ? 204 : 500;
      res.end();
    });
    const key = await keyWith(t, rx);
    const id = await t.app.deps.webhooks.notify('import.failed', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { import_id: 'i-2', error_code: 'import_duration_out_of_range', error_message: 'Import failed.' },
    });
    const hits = () => rx.received.filter((r) => r.json.event === 'import.failed');
    await until(() => hits().length === 5, 8000, 'five attempts');
    await until(async () => (await t.app.deps.webhooks.describe(id!))?.delivery.status === 'failed', 3000, 'failed status');
    await new Promise((r) => setTimeout(r, 1500)); // longer than the last gap: no sixth attempt
    expect(hits()).toHaveLength(5);
    const gaps = hits()
      .slice(1)
      .map((h, i) => h.at - hits()[i]!.at);
    const expected = [10, 30, 90, 270].map((s) => s * 1000 * SCALE);
    // The queue polls every 500 ms, so a gap is at least the scheduled delay and at most that plus a poll.
    gaps.forEach((g, i) => {
      expect(g, `gap ${i + 1}`).toBeGreaterThanOrEqual(expected[i]! - 5);
      expect(g, `gap ${i + 1}`).toBeLessThan(expected[i]! + 800);
    });
    for (const h of hits()) {
      expect(h.headers['x-svc-delivery-id']).toBe(id);
      expect(h.json.delivery_id).toBe(id);
      expect(
        verifyWebhookSignature(key.webhook_secret, String(h.headers['x-svc-timestamp']), h.body, String(h.headers['x-svc-signature'])),
      ).toBe(true);
    }
    const log = await t.app.deps.webhooks.describe(id!);
    expect(log?.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([1, 2, 3, 4, 5].map((n) => [n, 500, 'HTTP 500']));
    // Support's resend: one more attempt with the same delivery_id.
    await t.app.deps.webhooks.resend(id!);
    await until(() => hits().length === 6, 3000, 'resend');
    expect(hits()[5]!.json.delivery_id).toBe(id);
  });

  it('counts a 302 (not followed) and an answer slower than the limit as failures', async () => {
    const target = await startReceiver();
    cleanup.push(() => target.close());
    let mode: 'verify' | 'redirect' | 'slow' = 'verify';
    const { rx, t } = await setup({ PARLEY_WEBHOOK_TIMEOUT_MS: '300', PARLEY_WEBHOOK_RETRY_SCALE: '1' }, (_r, res) => {
      if (mode === 'redirect') {
        res.writeHead(302, { Location: target.url }).end();
      } else if (mode === 'slow') {
        setTimeout(() => res.end('late'), 1200).unref();
      } else res.end('ok');
    });
    const key = await keyWith(t, rx);
    mode = 'redirect';
    const a = await t.app.deps.webhooks.notify('credit.exhausted', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { balance: '0.0' },
    });
    await until(async () => ((await t.app.deps.webhooks.describe(a!))?.attempts.length ?? 0) >= 1, 3000, 'redirect attempt');
    const ra = await t.app.deps.webhooks.describe(a!);
    expect(ra?.attempts[0]).toMatchObject({ status_code: 302, error: 'redirect 302 not followed' });
    expect(ra?.delivery.status).toBe('pending'); // next attempt in 10 s
    expect(target.received).toHaveLength(0);
    mode = 'slow';
    const b = await t.app.deps.webhooks.notify('credit.exhausted', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { balance: '0.0' },
    });
    await until(async () => ((await t.app.deps.webhooks.describe(b!))?.attempts.length ?? 0) >= 1, 3000, 'slow attempt');
    const rb = await t.app.deps.webhooks.describe(b!);
    expect(rb?.attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 300 ms' });
    expect(rb?.attempts[0]?.duration_ms).toBeLessThan(1000);
  });

  it('sends to callback_url over the key URL, and nothing for a deleted key', async () => {
    const { rx, t } = await setup();
    const cb = await startReceiver();
    cleanup.push(() => cb.close());
    const key = await keyWith(t, rx);
    const data = { import_id: 'i-3', task_id: 't-3', name: 'n', duration_ms: 1000 };
    await t.app.deps.webhooks.notify('import.completed', { accountId: key.account_id, keyId: key.key_id, callbackUrl: cb.url, data });
    await until(() => cb.received.length === 1, 5000, 'callback delivery');
    expect(
      verifyWebhookSignature(
        key.webhook_secret,
        String(cb.received[0]!.headers['x-svc-timestamp']),
        cb.received[0]!.body,
        String(cb.received[0]!.headers['x-svc-signature']),
      ),
    ).toBe(true);
    expect(rx.received.map((r) => r.json.event)).toEqual(['webhook.verify']);
    await t.app.deps.keys.deleteKey(key.key_id);
    const id = await t.app.deps.webhooks.notify('import.completed', {
      accountId: key.account_id,
      keyId: key.key_id,
      callbackUrl: cb.url,
      data,
    });
    await until(async () => (await t.app.deps.webhooks.describe(id!))?.delivery.status === 'cancelled', 3000, 'cancelled');
    expect(cb.received).toHaveLength(1);
  });

  it('a queued delivery survives a restart', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const pgSchema = backend === 'postgres' ? await createPgSchema() : undefined;
    if (pgSchema) cleanup.push(() => dropPgSchema(pgSchema));
    // First process: API role only, so nothing is sent before it stops.
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-webhook-restart-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startTestApp({ backend, env: { PARLEY_ROLES: 'api' }, reuse: { dataDir, pgSchema }, bus: new InProcessBus() });
    const key = await first.app.deps.keys.createKey({ webhookUrl: rx.url });
    const id = await first.app.deps.webhooks.notify('import.completed', {
      accountId: key.account_id,
      keyId: key.key_id,
      data: { import_id: 'i-4', task_id: 't-4', name: 'n', duration_ms: 1 },
    });
    await first.app.close();
    expect(rx.received.map((r) => r.json.event)).toEqual(['webhook.verify']);
    const second = await startTestApp({ backend, reuse: { dataDir, pgSchema } });
    cleanup.push(() => second.app.close());
    await until(() => rx.received.length === 2, 5000, 'delivery after restart');
    expect(rx.received[1]!.json.delivery_id).toBe(id);
  });
});
