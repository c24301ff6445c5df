/**
 * Credit webhooks are durable and the outbox repairs itself:
 * - a charge that crosses the low and zero levels on a process without the worker role (its
 *   own bus, nobody subscribed) writes `credit.low` and `credit.exhausted` to the outbox in the
 *   charge's transaction; so does a refused start (`notifyExhausted`). A worker process started
 *   later, on another bus, delivers each exactly once, signed.
 * - a pending notification that lost its delivery job is re-queued by the worker's periodic
 *   sweep (PARLEY_WEBHOOK_REPAIR_SECONDS), without a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { verifyWebhookSignature } from '../../src/webhooks/signer.js';
import { backends, createPgSchema, dropPgSchema, startTestApp } from '../support/app.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

describe.each(backends())('durable credit webhooks and outbox repair (%s)', (backend) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const shared = async () => {
    const pgSchema = backend === 'postgres' ? await createPgSchema() : undefined;
    if (pgSchema) cleanup.push(() => dropPgSchema(pgSchema));
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-outbox-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    return { dataDir, pgSchema };
  };

  it('credit.low and credit.exhausted charged on an api-only process reach the receiver from a worker started later', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const reuse = await shared();
    const api = await startTestApp({ backend, env: { PARLEY_ROLES: 'api' }, reuse, bus: new InProcessBus() });
    cleanup.push(() => api.close());
    const { keys, billing, database } = api.app.deps;
    const key = await keys.createKey({ webhookUrl: rx.url });
    const p = { accountId: key.account_id, keyId: key.key_id };
    await billing.grantCredit({ accountId: p.accountId, points: 60, pool: 'account' });
    await billing.chargeOneOff(p, { type: 'summary', points: 15, idempotencyKey: `a:${p.keyId}` }); // 45 < 50: low
    await billing.chargeOneOff(p, { type: 'summary', points: 45, idempotencyKey: `b:${p.keyId}` }); // 0: exhausted
    const outbox = async () =>
      (await database.db.selectFrom('webhook_deliveries').select(['event', 'status', 'body']).orderBy('created_at').execute()).map((r) => [
        r.event,
        r.status,
        JSON.parse(r.body).data,
      ]);
    expect(await outbox()).toEqual([
      ['credit.low', 'pending', { balance: '45.0', threshold: '50.0' }],
      ['credit.exhausted', 'pending', { balance: '0.0' }],
    ]);
    expect(rx.received.map((r) => r.json.event)).toEqual(['webhook.verify']);

    const worker = await startTestApp({ backend, env: { PARLEY_ROLES: 'worker' }, reuse, bus: new InProcessBus() });
    cleanup.push(() => worker.close());
    const credit = () => rx.received.filter((r) => r.json?.event?.startsWith('credit.'));
    await until(() => credit().length >= 2, 15_000, 'both credit webhooks');
    await new Promise((r) => setTimeout(r, 800)); // a duplicate would arrive by now
    // Each once. Two independent notifications are delivered in parallel, in either order (only
    // rows chained with notifySequence wait for their predecessor): compare them sorted.
    const delivered = credit().map((r) => [r.json.event, r.json.data] as [string, unknown]);
    expect(delivered.sort((a, b) => a[0].localeCompare(b[0]))).toEqual([
      ['credit.exhausted', { balance: '0.0' }],
      ['credit.low', { balance: '45.0', threshold: '50.0' }],
    ]);
    for (const r of credit()) {
      expect(
        verifyWebhookSignature(key.webhook_secret!, r.headers['x-svc-timestamp'] as string, r.body, r.headers['x-svc-signature'] as string),
      ).toBe(true);
    }
    expect((await outbox()).map(([event, status]) => [event, status])).toEqual([
      ['credit.low', 'delivered'],
      ['credit.exhausted', 'delivered'],
    ]);
  }, 60_000);

  it('a refused start on an api-only process (credit.exhausted, cause refused) is written durably too', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const reuse = await shared();
    const api = await startTestApp({ backend, env: { PARLEY_ROLES: 'api' }, reuse, bus: new InProcessBus() });
    cleanup.push(() => api.close());
    const key = await api.app.deps.keys.createKey({ webhookUrl: rx.url });
    await api.app.deps.billing.notifyExhausted(key.account_id);
    await api.app.deps.billing.notifyExhausted(key.account_id); // within 24 h: nothing more
    const worker = await startTestApp({ backend, env: { PARLEY_ROLES: 'worker' }, reuse, bus: new InProcessBus() });
    cleanup.push(() => worker.close());
    await until(() => rx.received.some((r) => r.json?.event === 'credit.exhausted'), 15_000, 'credit.exhausted');
    await new Promise((r) => setTimeout(r, 800));
    expect(rx.received.filter((r) => r.json?.event === 'credit.exhausted').map((r) => r.json.data)).toEqual([{ balance: '0.0' }]);
  }, 60_000);

  it('the periodic sweep re-queues a pending notification whose delivery job was lost, without a restart', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const reuse = await shared();
    const t = await startTestApp({ backend, env: { PARLEY_WEBHOOK_REPAIR_SECONDS: '0.3' }, reuse });
    cleanup.push(() => t.close());
    const { keys, database } = t.app.deps;
    const key = await keys.createKey({ webhookUrl: rx.url });
    // A pending row with no job: what a lost queue entry leaves behind.
    const now = new Date().toISOString();
    await database.db
      .insertInto('webhook_deliveries')
      .values({
        id: '6f1c2b7e-0000-4000-8000-00000000aa01',
        account_id: key.account_id,
        key_id: key.key_id,
        event: 'credit.low',
        callback_url: null,
        body: JSON.stringify({
          event: 'credit.low',
          timestamp: now,
          delivery_id: '6f1c2b7e-0000-4000-8000-00000000aa01',
          data: { balance: '1.0', threshold: '50.0' },
        }),
        status: 'pending',
        attempts: 0,
        last_error: null,
        dedupe_key: null,
        after_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await until(() => rx.received.some((r) => r.json?.event === 'credit.low'), 10_000, 'the repaired delivery');
    await new Promise((r) => setTimeout(r, 1000)); // several sweeps later: still one
    expect(rx.received.filter((r) => r.json?.event === 'credit.low').map((r) => r.json.delivery_id)).toEqual([
      '6f1c2b7e-0000-4000-8000-00000000aa01',
    ]);
  }, 30_000);
});
