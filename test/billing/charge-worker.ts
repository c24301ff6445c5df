/**
 * One OS process of the concurrency test (concurrency.test.ts): charges one account in a
 * loop against the shared PostgreSQL schema through the real BillingService. It prints
 * `ready`, waits for `go` on stdin (so both processes start together), then prints one JSON
 * line with what it was charged and refused.
 */
import { createInterface } from 'node:readline';
import { BillingService } from '../../src/billing/service.js';
import { InProcessBus } from '../../src/bus/in-process.js';
import { loadConfig } from '../../src/config.js';
import { PlanService } from '../../src/plans/service.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { openDatabase } from '../../src/store/database.js';

interface Job {
  workerId: string;
  accountId: string;
  key1: string;
  key2: string;
  recordingUsageId: string;
  minutes: number;
  key1Limit: number;
  rounds: number;
}

const job = JSON.parse(process.env.PARLEY_CHARGE_JOB ?? '{}') as Job;
const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: '/tmp/unused' });
const database = openDatabase({
  databaseUrl: config.platform.databaseUrl,
  sqlitePath: ':memory:',
  pgSchema: process.env.PARLEY_PG_SCHEMA,
  poolSize: 4,
});
const plans = new PlanService(database);
const billing = new BillingService({
  database,
  plans,
  bus: new InProcessBus(),
  prices: config.billing,
  lowThreshold: config.billing.lowThreshold,
  keyPolicies: {
    keyPolicy: async (id) =>
      id === job.key1 ? { allowAccountPool: true, monthlySpendLimit: job.key1Limit, maxConcurrentSessions: null } : null,
  },
});

const k1 = { accountId: job.accountId, keyId: job.key1 };
const k2 = { accountId: job.accountId, keyId: job.key2 };
const out = {
  workerId: job.workerId,
  chargedMilli: 0,
  minutesCharged: [] as number[],
  duplicates: 0,
  refused: {} as Record<string, number>,
  startedAt: 0,
  endedAt: 0,
};

async function attempt(fn: () => Promise<{ charged: number; duplicate: boolean }>, onOk?: () => void) {
  try {
    const r = await fn();
    if (r.duplicate) out.duplicates++;
    else {
      out.chargedMilli += Math.round(r.charged * 1000);
      onOk?.();
    }
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'auth_quota_exceeded') throw err;
    const scope = String(err.details?.budget_scope);
    out.refused[scope] = (out.refused[scope] ?? 0) + 1;
  }
}

console.log('ready');
const rl = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();
out.startedAt = Date.now();
for (let i = 0; i < job.rounds; i++) {
  // Both processes charge the same recording minutes: each minute must be charged once.
  const m = i % job.minutes;
  await attempt(
    () => billing.charge(job.recordingUsageId, { idempotencyKey: `m${m}`, points: 1, minutes: 1 }),
    () => out.minutesCharged.push(m),
  );
  await attempt(() => billing.chargeOneOff(k1, { type: 'summary', points: 0.5, idempotencyKey: `${job.workerId}:k1:${i}` }));
  await attempt(() => billing.chargeOneOff(k2, { type: 'retranslate', points: 0.5, idempotencyKey: `${job.workerId}:k2:${i}` }));
}
out.endedAt = Date.now();
console.log(JSON.stringify(out));
await database.close();
