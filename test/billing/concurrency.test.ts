/**
 * Two OS processes charge one account at once on PostgreSQL, across a dedicated allotment,
 * account lots, an expiring lot (and an expired one that must never be touched) and a
 * monthly spend limit. Proves: no negative balance, no double charge, and the sum of usage
 * equals the sum taken from lots. Needs DATABASE_URL; under PARLEY_TEST_REQUIRE_SERVICES=1
 * a missing or unreachable PostgreSQL fails the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingService } from '../../src/billing/service.js';
import { InProcessBus } from '../../src/bus/in-process.js';
import { loadConfig } from '../../src/config.js';
import { PlanService } from '../../src/plans/service.js';
import { migrate } from '../../src/schema.js';
import { type Database, openDatabase } from '../../src/store/database.js';
import { createPgSchema, dropPgSchema } from '../support/app.js';

const PG_URL = process.env.DATABASE_URL;
const REQUIRED = process.env.PARLEY_TEST_REQUIRE_SERVICES === '1';
if (!PG_URL && !REQUIRED) console.warn('DATABASE_URL not set: the two-process charge test is skipped (it needs PostgreSQL)');

interface WorkerResult {
  workerId: string;
  chargedMilli: number;
  minutesCharged: number[];
  duplicates: number;
  refused: Record<string, number>;
  startedAt: number;
  endedAt: number;
}

function startWorker(env: Record<string, string>): { child: ChildProcess; ready: Promise<void>; result: Promise<WorkerResult> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'charge-worker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += String(d);
  });
  const lines = createInterface({ input: child.stdout! });
  let onReady!: () => void;
  const ready = new Promise<void>((r) => {
    onReady = r;
  });
  const result = new Promise<WorkerResult>((resolve, reject) => {
    let last = '';
    lines.on('line', (l) => {
      if (l === 'ready') onReady();
      else if (l.startsWith('{')) last = l;
    });
    child.on('exit', (code) => {
      if (code === 0 && last) resolve(JSON.parse(last) as WorkerResult);
      else reject(new Error(`worker exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
  return { child, ready, result };
}

describe.runIf(PG_URL || REQUIRED)('two processes charging one account on PostgreSQL', () => {
  let schema: string;
  let database: Database;
  let billing: BillingService;

  beforeAll(async () => {
    if (!PG_URL) throw new Error('PARLEY_TEST_REQUIRE_SERVICES=1 but DATABASE_URL is not set: the concurrency test cannot run');
    schema = await createPgSchema(); // fails the run when PostgreSQL is unreachable
    database = openDatabase({ databaseUrl: PG_URL, sqlitePath: ':memory:', pgSchema: schema });
    await migrate(database);
    const config = loadConfig({ PARLEY_DATA_DIR: '/tmp/unused' });
    billing = new BillingService({
      database,
      plans: new PlanService(database),
      bus: new InProcessBus(),
      prices: config.billing,
      lowThreshold: 50,
    });
  });
  afterAll(async () => {
    await database?.close();
    if (schema) await dropPgSchema(schema);
  });

  it('never overdraws, never double-charges, and usage equals what left the lots', { timeout: 120_000 }, async () => {
    const accountId = randomUUID();
    const key1 = randomUUID();
    const key2 = randomUUID();
    const hour = new Date(Date.now() + 3_600_000).toISOString();
    await billing.grantCredit({ accountId, points: 30, pool: 'key', keyId: key1 }); // dedicated allotment
    await billing.grantCredit({ accountId, points: 50, pool: 'account', expiresAt: null });
    await billing.grantCredit({ accountId, points: 40, pool: 'account', expiresAt: hour }); // expiring: drawn before the never-expiring one
    await billing.grantCredit({ accountId, points: 500, pool: 'account', expiresAt: '2020-01-01T00:00:00Z' }); // expired: never counts
    const recording = await billing.startUsage({ accountId, keyId: key1 }, { type: 'recording' });

    const job = { accountId, key1, key2, recordingUsageId: recording.id, minutes: 40, key1Limit: 70, rounds: 60 };
    const workers = ['w1', 'w2'].map((workerId) =>
      startWorker({ DATABASE_URL: PG_URL!, PARLEY_PG_SCHEMA: schema, PARLEY_CHARGE_JOB: JSON.stringify({ ...job, workerId }) }),
    );
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin!.end('go\n');
    const results = await Promise.all(workers.map((w) => w.result));

    // The two processes really overlapped.
    const [a, b] = results as [WorkerResult, WorkerResult];
    expect(Math.max(a.startedAt, b.startedAt)).toBeLessThan(Math.min(a.endedAt, b.endedAt));

    const db = database.db;
    const lots = await db.selectFrom('credit_lots').selectAll().where('account_id', '=', accountId).execute();
    const usage = await db.selectFrom('usage_records').selectAll().where('account_id', '=', accountId).execute();
    const draws = await db
      .selectFrom('billing_draws')
      .innerJoin('billing_charges', 'billing_charges.idempotency_key', 'billing_draws.charge_key')
      .select((eb) => eb.fn.sum<number>('billing_draws.milli').as('s'))
      .where('billing_charges.account_id', '=', accountId)
      .executeTakeFirst();

    // No negative balance; the expired lot untouched.
    for (const l of lots) expect(Number(l.remaining_milli)).toBeGreaterThanOrEqual(0);
    const expired = lots.find((l) => l.expires_at === '2020-01-01T00:00:00.000Z')!;
    expect(Number(expired.remaining_milli)).toBe(500_000);

    // Sum of usage == sum taken from lots == sum of draws == what the workers were told they were charged.
    const usageMilli = usage.reduce((s, u) => s + Number(u.points_milli), 0);
    const takenMilli = lots.reduce((s, l) => s + Number(l.granted_milli) - Number(l.remaining_milli), 0);
    expect(usageMilli).toBe(takenMilli);
    expect(Number(draws?.s ?? 0)).toBe(takenMilli);
    expect(a.chargedMilli + b.chargedMilli).toBe(takenMilli);
    expect(takenMilli).toBeLessThanOrEqual(120_000);

    // No double charge: each recording minute was charged by exactly one process, once.
    const minutes = [...a.minutesCharged, ...b.minutesCharged];
    expect(new Set(minutes).size).toBe(minutes.length);
    const rec = usage.find((u) => u.id === recording.id)!;
    expect(Number(rec.points_milli)).toBe(minutes.length * 1000);
    expect(Number(rec.minutes)).toBe(minutes.length);
    expect(a.duplicates + b.duplicates).toBeGreaterThan(0);

    // The key's monthly spend limit held; demand exceeded the credit, so refusals happened.
    expect(await billing.store.monthlySpentMilli(key1, new Date())).toBeLessThanOrEqual(70_000);
    const refusedScopes = new Set(results.flatMap((r) => Object.keys(r.refused)));
    expect(refusedScopes).toEqual(new Set(['key_monthly_limit', 'account_credit']));
    expect(takenMilli).toBe(120_000); // everything drawable was drawn, nothing more

    // Draw order: the allotment and the expiring lot were used up before the never-expiring one.
    const neverExpiring = lots.find((l) => l.pool === 'account' && l.expires_at === null)!;
    const expiring = lots.find((l) => l.expires_at === hour)!;
    const allotment = lots.find((l) => l.pool === 'key')!;
    if (Number(neverExpiring.remaining_milli) < 50_000) expect(Number(expiring.remaining_milli)).toBe(0);
    expect(Number(allotment.remaining_milli)).toBe(0);
    console.info(
      `two-process charge: ${minutes.length} minutes, ${takenMilli / 1000} points taken of 120, refusals ${JSON.stringify(results.map((r) => r.refused))}`,
    );
  });
});
