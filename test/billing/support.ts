/**
 * Billing test helpers: the real app (real database, real keys, port 0) with a movable
 * clock, and direct access to its billing and plan services, as the features that charge
 * use them.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { KeySettingsInput } from '../../src/keys/service.js';
import type { Principal } from '../../src/platform/auth/types.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { type Backend, startTestApp, type TestApp } from '../support/app.js';

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

/** A real key (keys service) in a new account, or in `accountId`; used over HTTP with X-API-Key. */
export async function realKey(t: TestApp, input: KeySettingsInput & { accountId?: string } = {}): Promise<Principal & { key: string }> {
  const k = await t.app.deps.keys.createKey(input);
  return { key: k.api_key, accountId: k.account_id, keyId: k.key_id };
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

/** The AppError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
