/**
 * Billing test helpers: the real app (real database, port 0) with a movable clock, and
 * direct access to its billing and plan services, as the features that charge use them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import type { KeyPolicy } from '../../src/billing/key-policy.js';
import type { Authenticator, AuthInput, Principal } from '../../src/platform/auth/types.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { createLogger } from '../../src/platform/logging.js';
import { type Backend, createPgSchema, dropPgSchema, startTestApp, type TestApp, testConfig } from '../support/app.js';
import { FixedKeyAuthenticator } from '../support/fixed-keys-auth.js';

export interface Clock {
  now: () => Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function clock(start = '2026-03-10T12:00:00.000Z'): Clock {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    set(iso) {
      t = Date.parse(iso);
    },
    advance(ms) {
      t += ms;
    },
  };
}

export async function startBillingApp(backend: Backend, c: Clock, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({ backend, now: c.now, env });
}

/**
 * The real app with the billing routes registered behind `auth` (a test Authenticator until
 * the keys feature is wired into the app), and key settings from `policies`.
 */
export async function startRoutesApp(
  backend: Backend,
  c: Clock,
  options: { auth?: Authenticator; policies?: Map<string, KeyPolicy>; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-billing-'));
  const pgSchema = backend === 'postgres' ? await createPgSchema() : undefined;
  const config = testConfig(dataDir, backend, options.env);
  const app = await buildApp(config, {
    logger: createLogger(config.platform.logLevel),
    pgSchema,
    now: c.now,
    authenticator: options.auth ?? new FixedKeyAuthenticator(),
  });
  const policies = options.policies ?? new Map<string, KeyPolicy>();
  app.deps.billing.useKeyPolicies({ keyPolicy: async (id) => policies.get(id) ?? null });
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    config,
    dataDir,
    backend,
    async close() {
      await app.close();
      if (pgSchema) await dropPgSchema(pgSchema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Test Authenticator over a mutable key map (tests add keys as they go). */
export class MapAuthenticator implements Authenticator {
  constructor(readonly keys: Map<string, Principal>) {}

  async authenticate(input: AuthInput): Promise<Principal> {
    if (!input.apiKey) throw new AppError('auth_missing_api_key');
    const p = this.keys.get(input.apiKey);
    if (!p) throw new AppError('auth_invalid_api_key');
    return p;
  }
}

export function principal(): Principal {
  return { accountId: randomUUID(), keyId: randomUUID() };
}

/** Sum of usage points and sum taken from lots, for the ledger invariant. */
export async function ledger(t: TestApp, accountId: string) {
  const db = t.app.deps.database.db;
  const usage = await db
    .selectFrom('usage_records')
    .select((eb) => eb.fn.sum<number | string | null>('points_milli').as('s'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const lots = await db
    .selectFrom('credit_lots')
    .select((eb) => [
      eb.fn.sum<number | string | null>('granted_milli').as('g'),
      eb.fn.sum<number | string | null>('remaining_milli').as('r'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const neg = await db
    .selectFrom('credit_lots')
    .select('id')
    .where('account_id', '=', accountId)
    .where('remaining_milli', '<', 0)
    .execute();
  return { usageMilli: Number(usage?.s ?? 0), takenMilli: Number(lots?.g ?? 0) - Number(lots?.r ?? 0), negativeLots: neg.length };
}
