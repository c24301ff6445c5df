/**
 * Key lookups cached in memory on SQLite (issue 19), never stale: a change to a key or its
 * account made by another connection (another process on the same file, the admin CLI, a
 * hand-written SQL update) takes effect on the very next request.
 */
import { join } from 'node:path';
import SQLiteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';

describe('key lookup cache (SQLite)', () => {
  let t: TestApp;
  let other: SQLiteDatabase.Database;
  beforeAll(async () => {
    t = await startTestApp({ backend: 'sqlite' });
    // Another writer of the same database file, as another process would be.
    other = new SQLiteDatabase(join(t.dataDir, 'parley.db'));
    other.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    other?.close();
    await t?.close();
  });

  const me = async (key: string) => {
    const r = await api(t.url, 'GET', '/api/v1/me/key', { key });
    return r.status === 200 ? 'ok' : (r.body.data.error_code as string);
  };

  it('changes written by another connection apply on the next request', async () => {
    const k = await t.app.deps.keys.createKey({ name: 'cached' });
    expect(await me(k.api_key)).toBe('ok');
    expect(await me(k.api_key)).toBe('ok');
    other.prepare('UPDATE api_keys SET disabled = 1 WHERE id = ?').run(k.key_id);
    expect(await me(k.api_key)).toBe('auth_key_disabled');
    other.prepare('UPDATE api_keys SET disabled = 0 WHERE id = ?').run(k.key_id);
    expect(await me(k.api_key)).toBe('ok');
    other.prepare('UPDATE accounts SET blocked = 1 WHERE id = ?').run(k.account_id);
    expect(await me(k.api_key)).toBe('auth_account_blocked');
    other.prepare('UPDATE accounts SET blocked = 0 WHERE id = ?').run(k.account_id);
    expect(await me(k.api_key)).toBe('ok');
    other.prepare(`UPDATE api_keys SET ip_rules = '["10.9.9.9"]' WHERE id = ?`).run(k.key_id);
    expect(await me(k.api_key)).toBe('auth_ip_not_allowed');
    other.prepare('DELETE FROM api_keys WHERE id = ?').run(k.key_id);
    expect(await me(k.api_key)).toBe('auth_invalid_api_key');
  });

  it('a cached key is served from memory while the epoch stays (and re-read once it moves)', async () => {
    const k = await t.app.deps.keys.createKey({ name: 'served from memory' });
    expect(await me(k.api_key)).toBe('ok');
    // A change that bypasses the epoch (its trigger dropped for this check) is not seen...
    other.exec('DROP TRIGGER api_keys_update_auth_epoch');
    other.prepare('UPDATE api_keys SET disabled = 1 WHERE id = ?').run(k.key_id);
    expect(await me(k.api_key)).toBe('ok');
    // ...until the epoch moves.
    other.exec('UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1');
    expect(await me(k.api_key)).toBe('auth_key_disabled');
  });
});
