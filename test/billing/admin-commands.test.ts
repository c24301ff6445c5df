import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBillingCommands } from '../../src/cli/admin/billing-commands.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { backends, type TestApp } from '../support/app.js';
import { clock, principal, startBillingApp } from './support.js';

describe.each(backends())('admin billing commands (%s)', (backend) => {
  const c = clock();
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c);
  });
  afterAll(() => t?.close());

  /** Runs the commands as the admin CLI does, capturing what they print. */
  const knownAccounts: string[] = [];
  async function admin(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const program = new Command().exitOverride().configureOutput({ writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) });
    const known = new Set(knownAccounts);
    registerBillingCommands(
      program,
      async () => ({
        billing: t.app.deps.billing,
        plans: t.app.deps.plans,
        // As the admin CLI may wire it: only accounts in `knownAccounts` exist.
        checkAccount: async (id) => {
          if (knownAccounts.length && !known.has(id))
            throw new AppError('validation_failed', { message: `No account ${id}.`, details: { field: 'account' } });
        },
        close: async () => {},
      }),
      {
        out: (s) => out.push(s),
        err: (s) => err.push(s),
      },
    );
    process.exitCode = undefined;
    let exit: number | undefined;
    try {
      await program.parseAsync(args, { from: 'user' });
      exit = process.exitCode ?? 0;
    } catch (e) {
      exit = (e as { exitCode?: number }).exitCode ?? 1;
    }
    process.exitCode = undefined;
    return { out: out.join(''), err: err.join(''), exit };
  }

  it('each command has --help', async () => {
    for (const cmd of ['grant-credit', 'set-plan', 'refund']) {
      const r = await admin(cmd, '--help');
      expect(r.exit).toBe(0);
      expect(r.out).toContain(`Usage:`);
      expect(r.out).toContain('--json');
    }
  });

  it('grant-credit --json grants account credit or a key allotment', async () => {
    const p = principal();
    const a = await admin('grant-credit', '--account', p.accountId, '--points', '12.5', '--json');
    expect(a.exit).toBe(0);
    expect(JSON.parse(a.out)).toEqual({
      lot_id: expect.any(String),
      account_id: p.accountId,
      pool: 'account',
      key_id: null,
      points: 12.5,
      expires_at: null,
      granted_at: c.now().toISOString(),
    });
    const k = await admin(
      'grant-credit',
      '--account',
      p.accountId,
      '--key',
      p.keyId,
      '--points',
      '3',
      '--expires',
      '2026-12-31T00:00:00Z',
      '--json',
    );
    expect(JSON.parse(k.out)).toMatchObject({ pool: 'key', key_id: p.keyId, points: 3, expires_at: '2026-12-31T00:00:00.000Z' });
    expect(await t.app.deps.billing.available(p)).toBe(15.5);
    const bad = await admin('grant-credit', '--account', p.accountId, '--points', '-1', '--json');
    expect(bad.exit).toBe(1);
    expect(JSON.parse(bad.out).error.code).toBe('validation_failed');
  });

  it('an account check supplied by the CLI refuses unknown accounts', async () => {
    const p = principal();
    knownAccounts.push(principal().accountId);
    const r = await admin('grant-credit', '--account', p.accountId, '--points', '1', '--json');
    knownAccounts.length = 0;
    expect(r.exit).toBe(1);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'validation_failed', details: { field: 'account' } });
    expect(await t.app.deps.billing.available(p)).toBe(0);
  });

  it('set-plan --json sets the three modes', async () => {
    const p = principal();
    const a = await admin(
      'set-plan',
      '--account',
      p.accountId,
      '--plan',
      'unlimited-plan',
      '--plan-name',
      'pro',
      '--expires',
      '2027-01-01T00:00:00Z',
      '--json',
    );
    expect(JSON.parse(a.out)).toEqual({
      account_id: p.accountId,
      mode: 'unlimited-plan',
      plan_name: 'pro',
      expires_at: '2027-01-01T00:00:00.000Z',
    });
    const u = await admin('set-plan', '--account', p.accountId, '--plan', 'unlimited', '--json');
    expect(JSON.parse(u.out)).toEqual({ account_id: p.accountId, mode: 'unlimited', plan_name: null, expires_at: null });
    const cr = await admin('set-plan', '--account', p.accountId, '--plan', 'credit', '--json');
    expect(JSON.parse(cr.out).mode).toBe('credit');
    const bad = await admin('set-plan', '--account', p.accountId, '--plan', 'unlimited-plan', '--plan-name', 'nope', '--json');
    expect(bad.exit).toBe(1);
    expect(JSON.parse(bad.out).error).toMatchObject({ code: 'validation_failed', details: { field: 'plan_name' } });
  });

  it('refund --json refunds a usage row in full with reason manual, once', async () => {
    const p = principal();
    await t.app.deps.billing.grantCredit({ accountId: p.accountId, points: 10, pool: 'account' });
    const r = await t.app.deps.billing.chargeOneOff(p, { type: 'summary', points: 4, idempotencyKey: `cli:${p.keyId}` });
    const a = await admin('refund', '--usage', r.usage.id, '--json');
    expect(JSON.parse(a.out)).toEqual({
      usage_id: r.usage.id,
      account_id: p.accountId,
      refunded_points: 4,
      refunded: true,
      refund_reason: 'manual',
    });
    expect(await t.app.deps.billing.available(p)).toBe(10);
    const again = await admin('refund', '--usage', r.usage.id);
    expect(again.out).toContain('already refunded');
    const missing = await admin('refund', '--usage', '00000000-0000-4000-8000-000000000000', '--json');
    expect(missing.exit).toBe(1);
    expect(JSON.parse(missing.out).error.code).toBe('not_found');
  });
});
