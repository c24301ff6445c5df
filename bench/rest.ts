import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import type { Principal } from '../src/platform/auth/types.js';
import { benchBackendName, startBenchApp } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TARGET = 0.5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

/** The round with the median throughput (its p99 goes with it); errors summed over rounds. */
function median(rs: Result[]): Result {
  const sorted = [...rs].sort((a, b) => a.rps - b.rps);
  const mid = sorted[Math.floor(sorted.length / 2)]!;
  return { ...mid, errors: rs.reduce((s, r) => s + r.errors, 0), non2xx: rs.reduce((s, r) => s + r.non2xx, 0) };
}

interface Result {
  name: string;
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time of this process (server and client) per request, in microseconds. */
  cpuUsPerRequest: number;
}

async function measure(name: string, url: string, headers: Record<string, string>, seconds = SECONDS): Promise<Result> {
  const cpu = process.cpuUsage();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  const used = process.cpuUsage(cpu);
  const cpuUsPerRequest = (used.user + used.system) / Math.max(1, r.requests.total);
  return { name, rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, cpuUsPerRequest };
}

async function main(): Promise<void> {
  const bench = await startBenchApp();
  const { app } = bench;
  // Real keys through the app's own Authenticator (one indexed read per request).
  const creditKey = await app.deps.keys.createKey({ name: 'bench credit' });
  const plannedKeyRow = await app.deps.keys.createKey({ name: 'bench plan-bound' });
  const credit: Principal = { accountId: creditKey.account_id, keyId: creditKey.key_id };
  const planned: Principal = { accountId: plannedKeyRow.account_id, keyId: plannedKeyRow.key_id };
  const key = creditKey.api_key;
  const plannedKey = plannedKeyRow.api_key;
  const base = bench.url;

  // A realistic account: a few lots, some usage; and a plan-bound account with minutes today.
  const b = app.deps.billing;
  await b.grantCredit({ accountId: credit.accountId, points: 500, pool: 'account' });
  await b.grantCredit({
    accountId: credit.accountId,
    points: 100,
    pool: 'account',
    expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  });
  await b.grantCredit({ accountId: credit.accountId, points: 50, pool: 'key', keyId: credit.keyId });
  for (let i = 0; i < 50; i++) await b.chargeOneOff(credit, { type: 'summary', points: 1, idempotencyKey: `bench:${i}` });
  await app.deps.plans.setPlan(planned.accountId, 'unlimited-plan');
  const rec = await b.startUsage(planned, { type: 'recording' });
  for (let m = 0; m < 120; m++) await b.charge(rec.id, { idempotencyKey: `m${m}`, points: 1, minutes: 1 });
  await b.endUsage(rec.id);

  // The baseline: a bare Fastify route (no logger, no hooks, no plugins) in this process, so it
  // shares the machine, the event loop and the client with Parley's routes.
  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => ({ ok: true }));
  const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`;
  const loadBefore = loadavg();

  const check = await fetch(`${base}/api/v1/me/plan`, { headers: { 'x-api-key': key } });
  if (check.status !== 200) throw new Error(`GET /api/v1/me/plan answered ${check.status}: ${await check.text()}`);

  // Warm up both paths (JIT, statement caches), then measure in the same run: rounds that
  // alternate the routes, so a noisy neighbour on a shared machine hits them alike; the
  // median round of each route is reported.
  await measure('warm-up', bareUrl, {}, 1);
  await measure('warm-up', `${base}/api/v1/version`, {}, 1);
  await measure('warm-up', `${base}/api/v1/me/plan`, { 'x-api-key': key }, 1);
  const routes: [string, string, Record<string, string>][] = [
    ['GET /bare (bare fastify, same process)', bareUrl, {}],
    ['GET /api/v1/version (no auth)', `${base}/api/v1/version`, {}],
    ['GET /api/v1/me/plan (auth, credit)', `${base}/api/v1/me/plan`, { 'x-api-key': key }],
    ['GET /api/v1/me/plan (auth, plan-bound)', `${base}/api/v1/me/plan`, { 'x-api-key': plannedKey }],
  ];
  const rounds: Result[][] = routes.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, [name, url, headers]] of routes.entries()) rounds[i]!.push(await measure(name, url, headers, SECONDS / ROUNDS));
  }
  const results = rounds.map((rs) => median(rs));
  await bench.close();
  await bare.close();
  const loadAfter = loadavg();

  console.log(
    `REST benchmark: ${benchBackendName()}, ${CONNECTIONS} connections, ${SECONDS} s per route in ${ROUNDS} alternating rounds (median round shown), real keys`,
  );
  console.log(`${'route'.padEnd(44)} ${'req/s'.padStart(9)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'CPU µs/req'.padStart(11)}`);
  const cpuMedian = (i: number) => {
    const v = rounds[i]!.map((r) => r.cpuUsPerRequest).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)]!;
  };
  for (const [i, r] of results.entries())
    console.log(
      `${r.name.padEnd(44)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p99).padStart(8)} ${String(r.errors + r.non2xx).padStart(7)} ${cpuMedian(i).toFixed(0).padStart(11)}`,
    );
  // The ratio of each round (the routes ran back to back), median over rounds: robust to a
  // machine whose load drifts during the run.
  const medianRatio = (i: number) => {
    const ratios = rounds[i]!.map((r, k) => r.rps / rounds[0]![k]!.rps).sort((a, b) => a - b);
    return { median: ratios[Math.floor(ratios.length / 2)]!, all: ratios };
  };
  const version = medianRatio(1);
  const creditRatio = medianRatio(2);
  const planBound = medianRatio(3);
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  console.log(`per-round ratios /me/plan (credit) / bare: ${creditRatio.all.map(pct).join(', ')}`);
  console.log(
    `median ratio to bare fastify: /me/plan (credit) ${pct(creditRatio.median)} (target >= ${TARGET * 100} %), /me/plan (plan-bound) ${pct(planBound.median)}, /version ${pct(version.median)}`,
  );
  // CPU time per request is what the other tenants of a shared machine do not change (they
  // change how much CPU we get, not how much a request needs): the steadier estimate there.
  console.log(
    `CPU-time ratio to bare fastify (bare CPU per request / route CPU per request, medians; this process serves and loads): /me/plan (credit) ${pct(cpuMedian(0) / cpuMedian(2))}, /me/plan (plan-bound) ${pct(cpuMedian(0) / cpuMedian(3))}, /version ${pct(cpuMedian(0) / cpuMedian(1))}`,
  );
  console.log(
    `load average (1, 5, 15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${loadAfter.map((l) => l.toFixed(2)).join(', ')} (2 cores shared)`,
  );
  const ratio = creditRatio.median;
  if (results.some((r) => r.errors + r.non2xx > 0)) {
    console.log('FAIL: some requests failed');
    process.exitCode = 1;
  } else if (ratio < TARGET) {
    console.log('FAIL: below target');
    process.exitCode = 1;
  } else {
    console.log('PASS');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
