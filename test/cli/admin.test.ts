import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { api, startTestApp } from '../support/app.js';
import { commandArgs, SERVER_ARGS } from '../support/server.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

async function admin(dataDir: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await exec(process.execPath, commandArgs('admin', args), {
      cwd: ROOT,
      env: { ...process.env, PARLEY_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', PARLEY_WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

describe('admin CLI (same data folder as the service)', () => {
  it('create-key prints one JSON object whose key works against the running service', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-admin-'));
    // A receiver that answers the webhook.verify request sent when a key-level URL is saved.
    const verified: string[] = [];
    const receiver = createServer((req, res) => {
      verified.push(String(req.headers['x-svc-event']));
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/x`;
    const created = await admin(dataDir, ['create-key', '--json', '--name', 'Ops', '--credit', '40', '--webhook-url', hook]);
    receiver.close();
    expect(verified).toEqual(['webhook.verify']);
    expect(created.code).toBe(0);
    const k = JSON.parse(created.out);
    expect(k).toMatchObject({
      api_key: expect.stringMatching(/^svc_[A-Za-z0-9]{32}$/),
      key_id: expect.any(String),
      account_id: expect.any(String),
      webhook_secret: expect.stringMatching(/^[A-Za-z0-9]{64}$/),
    });

    const t = await startTestApp({ reuse: { dataDir } });
    try {
      const plan = await api(t.url, 'GET', '/api/v1/me/plan', { key: k.api_key });
      expect(plan.status).toBe(200);
      expect(plan.body.data).toMatchObject({ mode: 'credit', available_credit: 40 });
      const me = await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key });
      expect(me.body.data).toMatchObject({ name: 'Ops', webhook_url: hook });

      // update-key, disable-key, block-account, disable-user and delete-key change what the service answers at once.
      expect((await admin(dataDir, ['update-key', '--key', k.key_id, '--monthly-limit', '12.5', '--json'])).code).toBe(0);
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.monthly_spend_limit).toBe(12.5);
      expect((await admin(dataDir, ['disable-key', '--key', k.key_id, '--json'])).code).toBe(0);
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.error_code).toBe('auth_key_disabled');
      expect((await admin(dataDir, ['disable-key', '--key', k.key_id, '--enable', '--json'])).code).toBe(0);
      expect((await admin(dataDir, ['block-account', '--account', k.account_id, '--json'])).code).toBe(0);
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.error_code).toBe('auth_account_blocked');
      expect((await admin(dataDir, ['block-account', '--account', k.account_id, '--unblock', '--json'])).code).toBe(0);
      expect((await admin(dataDir, ['disable-user', '--account', k.account_id, '--json'])).code).toBe(0);
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.error_code).toBe('auth_user_disabled');
      expect((await admin(dataDir, ['disable-user', '--account', k.account_id, '--enable', '--json'])).code).toBe(0);

      const list = JSON.parse((await admin(dataDir, ['list-keys', '--json'])).out);
      expect(list.keys).toHaveLength(1);
      expect(JSON.stringify(list)).not.toContain(k.api_key);
      expect(JSON.stringify(list)).not.toContain(k.webhook_secret);

      expect((await admin(dataDir, ['delete-key', '--key', k.key_id, '--json'])).code).toBe(0);
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.error_code).toBe('auth_invalid_api_key');
    } finally {
      await t.close();
    }
  }, 120_000);

  it('bad input exits non-zero with a clear message and changes nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-admin-'));
    const r = await admin(dataDir, ['create-key', '--json', '--credit', 'lots']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'validation_failed', details: { field: '--credit' } });
    const bad = await admin(dataDir, ['create-key', '--json', '--ip-rules', '10.0.0.0/40']);
    expect(JSON.parse(bad.out).error.details.field).toBe('ip_rules');
    const url = await admin(dataDir, ['create-key', '--json', '--webhook-url', 'ftp://x']);
    expect(JSON.parse(url.out).error.details.field).toBe('webhook_url');
    expect(JSON.parse((await admin(dataDir, ['list-keys', '--json'])).out).keys).toEqual([]);
    const grant = await admin(dataDir, ['grant-credit', '--account', '00000000-0000-4000-8000-000000000000', '--points', '5', '--json']);
    expect(grant.code).toBe(1);
    expect(JSON.parse(grant.out).error.details.field).toBe('--account');
    const help = await admin(dataDir, ['update-key', '--help']);
    expect(help.out).toContain('--monthly-limit');
  }, 60_000);
});

describe('first start', () => {
  it('creates one account with starter credit and prints its key once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-first-'));
    const start = () =>
      new Promise<{ out: string; port: number; stop: () => Promise<void> }>((resolve, reject) => {
        const child = spawn(process.execPath, SERVER_ARGS, {
          cwd: ROOT,
          env: {
            ...process.env,
            PORT: '0',
            HOST: '127.0.0.1',
            PARLEY_DATA_DIR: dataDir,
            DATABASE_URL: '',
            REDIS_URL: '',
            PARLEY_STARTER_CREDIT: '25',
          },
        });
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 30_000);
        child.stdout.on('data', (d) => {
          out += d;
          // The banner comes last (after the first-start key).
          const m = out.match(/console http:\/\/127\.0\.0\.1:(\d+)\//);
          if (m) {
            clearTimeout(timer);
            resolve({
              out,
              port: Number(m[1]),
              stop: () =>
                new Promise((r) => {
                  child.on('exit', () => r());
                  child.kill('SIGTERM');
                }),
            });
          }
        });
      });
    const first = await start();
    const key = first.out.match(/API key \(shown once, keep it\): (svc_[A-Za-z0-9]{32})/)?.[1];
    expect(key).toBeDefined();
    // The key is on stdout once, in the banner, and nowhere in the JSON log lines.
    expect(first.out.split(key!).length - 1).toBe(1);
    const plan = await api(`http://127.0.0.1:${first.port}`, 'GET', '/api/v1/me/plan', { key });
    expect(plan.body.data).toMatchObject({ mode: 'credit', available_credit: 25 });
    await first.stop();
    const second = await start();
    expect(second.out).not.toContain('API key (shown once');
    await second.stop();
  }, 90_000);
});
