/**
 * Task webhooks do not ride on pub/sub: a task's outcome writes its outbox row (and the row's
 * delivery job) in the transaction that changes its status. A live recording on a process
 * with only the api and realtime roles (no worker, no subscriber of any kind, its own bus)
 * leaves one pending notification per outcome; a worker process started afterwards, on another
 * bus, delivers exactly one signed webhook for each. And when the outbox write fails, the
 * status change is rolled back with it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { verifyWebhookSignature } from '../../src/webhooks/signer.js';
import { connect, JFK, jfkPcm, liveEngines, startSession, streamPcm, vt } from '../realtime/support.js';
import { api, backends, createPgSchema, dropPgSchema, startTestApp } from '../support/app.js';
import { outboxFor } from '../support/outbox.js';
import { until } from '../support/until.js';
import { startReceiver } from './receiver.js';

describe.each(backends())('durable task webhooks (%s)', (backend) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it.skipIf(!existsSync(JFK))(
    'a completed and a failed live recording each give one signed webhook, with no worker or subscriber alive when they end',
    async () => {
      const rx = await startReceiver();
      cleanup.push(() => rx.close());
      const pgSchema = backend === 'postgres' ? await createPgSchema() : undefined;
      if (pgSchema) cleanup.push(() => dropPgSchema(pgSchema));
      const dataDir = mkdtempSync(join(tmpdir(), 'parley-durable-'));
      cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const live = await startTestApp({
        backend,
        env: { PARLEY_ROLES: 'api,realtime' },
        reuse: { dataDir, pgSchema },
        engines: await liveEngines(),
        bus: new InProcessBus(),
      });
      cleanup.push(() => live.close());

      const key = await live.app.deps.keys.createKey({ webhookUrl: rx.url });
      await live.app.deps.billing.grantCredit({ accountId: key.account_id, points: 50, pool: 'account' });
      const ticket = (await api(live.url, 'POST', '/api/v1/auth/ticket', { key: key.api_key })).body.data.ticket as string;
      const secret = key.webhook_secret;
      const cl = await connect(live, [`ticket.${ticket}`]);
      cleanup.push(async () => cl.ws.close());
      const completed = (await startSession(cl, { name: 'durable' })).data.task_id as string;
      await streamPcm(cl, jfkPcm(), 4);
      cl.send(vt('stop'));
      expect((await cl.next((m) => m.data?.action === 'task_complete', 60_000)).data.status).toBe('completed');
      const failed = (await startSession(cl, {})).data.task_id as string;
      cl.send(vt('stop'));
      expect((await cl.next((m) => m.data?.action === 'task_complete', 20_000)).data.status).toBe('failed');

      // Written with the outcomes, waiting for a worker.
      expect((await outboxFor(live.app, completed)).map((e) => [e.event, e.status])).toEqual([['recording.completed', 'pending']]);
      expect((await outboxFor(live.app, failed)).map((e) => [e.event, e.status, e.data.failure_source])).toEqual([
        ['recording.failed', 'pending', 'no_audio'],
      ]);
      expect(rx.received.map((r) => r.json.event)).toEqual(['webhook.verify']);

      const worker = await startTestApp({
        backend,
        env: { PARLEY_ROLES: 'worker' },
        reuse: { dataDir, pgSchema },
        bus: new InProcessBus(), // not the live process's bus: nothing crosses it
      });
      cleanup.push(() => worker.close());
      // Task webhooks only (the minutes charged also cross credit.low, delivered durably too: outbox-repair.test.ts).
      const hooks = () => rx.received.filter((r) => r.json?.event?.startsWith('recording.'));
      await until(() => hooks().length >= 2, 15_000, 'both webhooks');
      await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive by now
      expect(
        hooks()
          .map((r) => [r.json.event, r.json.data.task_id])
          .sort(),
      ).toEqual(
        [
          ['recording.completed', completed],
          ['recording.failed', failed],
        ].sort(),
      );
      for (const r of hooks()) {
        const ts = r.headers['x-svc-timestamp'] as string;
        expect(verifyWebhookSignature(secret, ts, r.body, r.headers['x-svc-signature'] as string)).toBe(true);
      }
      expect(hooks().find((r) => r.json.event === 'recording.completed')!.json.data).toMatchObject({
        task_id: completed,
        name: 'durable',
        type_source: 'realtime',
      });
      expect(hooks().find((r) => r.json.event === 'recording.failed')!.json.data).toMatchObject({
        task_id: failed,
        failure_source: 'no_audio',
      });
    },
    120_000,
  );

  it('an outcome whose outbox row cannot be written is rolled back with it', async () => {
    const t = await startTestApp({ backend });
    cleanup.push(() => t.close());
    const key = await t.app.deps.keys.createKey({ name: 'k' });
    const { store, tasks } = t.app.deps.tasks;
    const task = await store.createTask({
      accountId: key.account_id,
      keyId: key.key_id,
      title: 'n',
      type: 'transcribe',
      typeSource: 'realtime',
      recognitionMode: 'single',
      processingStatus: 'processing',
    });
    const db = t.app.deps.database.db;
    // A failure injected through the real database: the outbox refuses inserts.
    if (backend === 'postgres') {
      await sql`create function refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused'; end $$`.execute(
        db,
      );
      await sql`create trigger refuse_outbox before insert on webhook_deliveries for each row execute function refuse_outbox()`.execute(db);
    } else {
      await sql`create trigger refuse_outbox before insert on webhook_deliveries begin select raise(abort, 'outbox refused'); end`.execute(
        db,
      );
    }
    await expect(tasks.complete(task.taskId)).rejects.toThrow(/outbox refused/);
    await expect(tasks.fail(task.taskId, { source: 'processing' })).rejects.toThrow(/outbox refused/);
    expect((await store.getTask(task.taskId))?.processingStatus).toBe('processing');
    await sql`drop trigger refuse_outbox${sql.raw(backend === 'postgres' ? ' on webhook_deliveries' : '')}`.execute(db);
    await tasks.complete(task.taskId);
    expect((await store.getTask(task.taskId))?.processingStatus).toBe('completed');
    expect((await outboxFor(t.app, task.taskId)).map((e) => e.event)).toEqual(['recording.completed']);
  });
});
