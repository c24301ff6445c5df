/**
 * The admin CLI's key settings, end to end: each flag is run as an operator would (a child
 * process on the service's database: the SQLite data folder, and a fresh PostgreSQL
 * database when DATABASE_URL is set), then checked through the running service's HTTP API.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/admin.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { commandArgs } from '../support/server.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PG_URL = process.env.DATABASE_URL;

async function pgAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database for one suite: a data folder, plus its own PostgreSQL database for the postgres run. */
async function freshDatabase(backend: string): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-admin-keys-'));
  if (backend !== 'postgres') {
    return { env: { PARLEY_DATA_DIR: dataDir, DATABASE_URL: '' }, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `t_cli_${randomBytes(5).toString('hex')}`;
  await pgAdmin(`create database ${name}`);
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return {
    env: { PARLEY_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    async drop() {
      await pgAdmin(`drop database if exists ${name} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Run {
  code: number;
  // biome-ignore lint/suspicious/noExplicitAny: the printed JSON is read freely
  json: any;
  out: string;
  err: string;
}

// One backend: PostgreSQL when DATABASE_URL is set (test/cli/admin.test.ts covers the SQLite data folder);
// each command is a child process, slow on a shared 2-core machine.
describe.each(backends().slice(-1))('admin CLI key commands (%s)', (backend) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let t: TestApp;
  // Saving a webhook URL sends webhook.verify; this real receiver answers 200.
  let hooks: Receiver;

  async function admin(...args: string[]): Promise<Run> {
    let out = '';
    let err = '';
    let code = 0;
    try {
      ({ stdout: out, stderr: err } = await exec(process.execPath, commandArgs('admin', args), {
        cwd: ROOT,
        env: { ...process.env, REDIS_URL: '', PARLEY_WEBHOOK_ALLOW_PRIVATE: '1', ...db.env },
      }));
    } catch (e) {
      ({ code, stdout: out, stderr: err } = e as { code: number; stdout: string; stderr: string });
    }
    let json: unknown = null;
    try {
      json = JSON.parse(out);
    } catch {
      /* text output */
    }
    return { code, json, out, err };
  }
  const me = (key: string) => api(t.url, 'GET', '/api/v1/me/key', { key });

  beforeAll(async () => {
    hooks = await startReceiver();
    db = await freshDatabase(backend);
    // The CLI migrates the empty database first; the service then opens the same one.
    expect((await admin('list-keys', '--json')).json).toEqual({ keys: [] });
    t = await startTestApp({
      reuse: { dataDir: db.env.PARLEY_DATA_DIR!, pgSchema: 'public' },
      env: db.env.DATABASE_URL ? { DATABASE_URL: db.env.DATABASE_URL } : {},
      backend,
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await hooks?.close();
  });

  it('create-key with every setting; the service shows them, and --plan and --account apply', async () => {
    const c = await admin(
      'create-key',
      '--json',
      '--name',
      'Studio 録音',
      '--plan',
      'unlimited',
      '--monthly-limit',
      '5.5',
      '--max-sessions',
      '2',
      '--no-account-pool',
      '--ip-rules',
      '127.0.0.1, ::1',
      '--expires',
      '2099-06-01T00:00:00Z',
      '--webhook-url',
      hooks.url.replace('http://', 'http://ops:pw@').replace('/hook', '/in?t=1'),
    );
    expect(c.code).toBe(0);
    expect(c.json).toMatchObject({ api_key: expect.stringMatching(/^svc_[A-Za-z0-9]{32}$/), plan: 'unlimited' });
    const k = c.json;
    expect((await me(k.api_key)).body.data).toEqual({
      name: 'Studio 録音',
      expires_at: '2099-06-01T00:00:00.000Z',
      monthly_spend_limit: 5.5,
      monthly_spent: 0,
      max_concurrent_sessions: 2,
      allow_account_pool: false,
      webhook_url: hooks.url.replace('/hook', '/in'),
      ip_restricted: true,
    });
    expect((await api(t.url, 'GET', '/api/v1/me/plan', { key: k.api_key })).body.data).toMatchObject({ mode: 'unlimited', plan: null });

    const second = await admin('create-key', '--json', '--account', k.account_id, '--name', 'second');
    expect(second.json.account_id).toBe(k.account_id);
    expect(second.json.api_key).not.toBe(k.api_key);
    const listed = await admin('list-keys', '--json', '--account', k.account_id);
    expect(listed.json.keys.map((x: { name: string }) => x.name)).toEqual(['Studio 録音', 'second']);
    expect(listed.out).not.toContain(k.api_key.slice(4));
    expect(listed.out).not.toContain(k.webhook_secret);
  }, 120_000);

  it('update-key changes only what is given, and the next request sees it', async () => {
    const k = (await admin('create-key', '--json', '--name', 'upd', '--credit', '3')).json;
    const run = async (...args: string[]) => {
      const r = await admin('update-key', '--key', k.key_id, '--json', ...args);
      expect(r.code, `${args.join(' ')}: ${r.out}${r.err}`).toBe(0);
      return r.json;
    };
    const first = await run(
      '--ip-rules',
      '10.0.0.0/8,2001:db8::/32',
      '--webhook-url',
      hooks.url,
      '--max-sessions',
      '4',
      '--no-account-pool',
      '--allotment',
      '7',
      '--allotment-expires',
      '2099-01-01T00:00:00Z',
    );
    expect(first).toMatchObject({
      name: 'upd',
      ip_rules: ['10.0.0.0/8', '2001:db8::/32'],
      webhook_url: hooks.url,
      max_concurrent_sessions: 4,
    });
    expect((await me(k.api_key)).body.data.error_code).toBe('auth_ip_not_allowed');

    await run('--ip-rules', 'none', '--expires', '2000-01-01T00:00:00Z');
    expect((await me(k.api_key)).body.data.error_code).toBe('auth_key_expired');

    await run('--expires', 'none', '--webhook-url', 'none');
    expect((await me(k.api_key)).body.data).toEqual({
      name: 'upd',
      expires_at: null,
      monthly_spend_limit: null,
      monthly_spent: null,
      max_concurrent_sessions: 4,
      allow_account_pool: false,
      webhook_url: null,
      ip_restricted: false,
    });
    // The dedicated allotment is a key lot; with the account pool off only it is the key's to spend.
    const lots = (await api(t.url, 'GET', '/api/v1/me/credit-lots', { key: k.api_key })).body.data;
    expect(lots).toEqual([expect.objectContaining({ pool: 'key', remaining_points: 7, expires_at: '2099-01-01T00:00:00.000Z' })]);
  }, 120_000);

  it('ids that are not UUIDs or do not exist: exit 1 with validation_failed, nothing else happens', async () => {
    const k = (await admin('create-key', '--json', '--name', 'untouched')).json;
    const attempts: string[][] = [
      ['delete-key', '--key', "1' or '1'='1"],
      ['block-account', '--account', 'ключ'],
      ['create-key', '--account', '00000000-0000-4000-8000-000000000000'],
    ];
    for (const a of attempts) {
      const r = await admin(...a, '--json');
      expect(r.code, a.join(' ')).toBe(1);
      expect(r.json.error, a.join(' ')).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
    }
    expect((await me(k.api_key)).body.data.name).toBe('untouched');
    const keys = await t.app.deps.keys.listKeys();
    expect(keys.map((x) => x.account_id).filter((a) => a === '00000000-0000-4000-8000-000000000000')).toEqual([]);
  }, 120_000);

  // Every option is parsed before anything is saved; a negative --credit is refused.
  it('a refused update-key or create-key changes nothing', async () => {
    const k = (await admin('create-key', '--json', '--name', 'before')).json;
    const r = await admin('update-key', '--key', k.key_id, '--json', '--name', 'after', '--allotment', 'lots');
    expect(r.code).toBe(1);
    expect((await me(k.api_key)).body.data.name).toBe('before');
    const negative = await admin('create-key', '--json', '--credit', '-5');
    expect(negative.code).toBe(1);
    expect(negative.json.error.details).toMatchObject({ field: '--credit' });
  }, 120_000);

  it('usage errors: a missing required option or a bad --plan exit non-zero with a message', async () => {
    const missing = await admin('update-key', '--json');
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain("required option '--key <id>'");
    const plan = await admin('create-key', '--json', '--plan', 'gold');
    expect(plan.code).toBe(1);
    expect(plan.json.error.details).toMatchObject({ field: '--plan' });
  }, 120_000);
});

describe('admin CLI help', () => {
  it('every key and account command documents --json and its options in --help', () => {
    const program = buildProgram();
    const help = (name: string) => program.commands.find((c) => c.name() === name)?.helpInformation() ?? '';
    for (const cmd of ['create-key', 'update-key', 'list-keys', 'disable-key', 'delete-key', 'block-account', 'disable-user']) {
      expect(help(cmd), cmd).toContain('--json');
    }
    for (const flag of ['--name', '--credit', '--plan', '--account', '--webhook-url']) expect(help('create-key')).toContain(flag);
    for (const flag of [
      '--expires',
      '--monthly-limit',
      '--max-sessions',
      '--allotment',
      '--no-account-pool',
      '--ip-rules',
      '--webhook-url',
    ]) {
      expect(help('update-key')).toContain(flag);
    }
    expect(help('disable-key')).toContain('--enable');
    expect(help('block-account')).toContain('--unblock');
    expect(help('disable-user')).toContain('--enable');
  });
});
