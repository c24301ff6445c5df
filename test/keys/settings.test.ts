/**
 * Key settings as a user sees them through GET /api/v1/me/key, and the validation of each
 * setting: a rejected change leaves the stored key exactly as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeySettingsInput } from '../../src/keys/service.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { startReceiver } from '../webhooks/receiver.js';

describe.each(backends())('key settings (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend });
  });
  afterAll(() => t.close());

  const keys = () => t.app.deps.keys;
  const me = async (key: string) => {
    const r = await api(t.url, 'GET', '/api/v1/me/key', { key });
    expect(r.status).toBe(200);
    return r.body.data;
  };
  const row = (id: string) => t.app.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('names in any script round-trip unchanged', async () => {
    for (const name of ['会议记录 key', 'Ünïcødé – ключ', '🎙️ studio', 'עברית']) {
      const k = await keys().createKey({ name });
      expect((await me(k.api_key)).name).toBe(name);
    }
  });

  it('the webhook URL is shown as scheme, host, port and path only', async () => {
    // Saving a URL verifies it (webhook.verify must get a 2xx), so a real receiver answers here.
    const receiver = await startReceiver();
    try {
      const { port } = new URL(receiver.url);
      const cases: [string, string][] = [
        [`http://127.0.0.1:${port}/in`, `http://127.0.0.1:${port}/in`],
        [`http://u:p@127.0.0.1:${port}/a/b?sig=1#x`, `http://127.0.0.1:${port}/a/b`],
        [`http://localhost:${port}/hook?x=1`, `http://localhost:${port}/hook`],
      ];
      for (const [saved, shown] of cases) {
        const k = await keys().createKey({ webhookUrl: saved });
        const data = await me(k.api_key);
        expect(data.webhook_url).toBe(shown);
        expect(JSON.stringify(data)).not.toContain(k.webhook_secret);
      }
    } finally {
      await receiver.close();
    }
  });

  it('monthly_spent is a number only while a limit is set', async () => {
    const k = await keys().createKey({});
    expect(await me(k.api_key)).toMatchObject({ monthly_spend_limit: null, monthly_spent: null });
    await keys().updateKey(k.key_id, { monthlySpendLimit: 0.5 });
    expect(await me(k.api_key)).toMatchObject({ monthly_spend_limit: 0.5, monthly_spent: 0 });
    await keys().updateKey(k.key_id, { monthlySpendLimit: null });
    expect(await me(k.api_key)).toMatchObject({ monthly_spend_limit: null, monthly_spent: null });
  });

  it('ip_restricted says whether rules exist, never which', async () => {
    const k = await keys().createKey({ ipRules: ['127.0.0.1', '::1'] });
    const data = await me(k.api_key);
    expect(data.ip_restricted).toBe(true);
    expect(JSON.stringify(data)).not.toContain('127.0.0.1');
    await keys().updateKey(k.key_id, { ipRules: [] });
    expect((await me(k.api_key)).ip_restricted).toBe(false);
  });

  it('each invalid setting is refused with validation_failed naming the field, and nothing changes', async () => {
    const k = await keys().createKey({ name: 'keep me', monthlySpendLimit: 10, maxConcurrentSessions: 2 });
    const before = await row(k.key_id);
    const bad: [KeySettingsInput, string][] = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ expiresAt: 'next tuesday' }, 'expires_at'],
      [{ monthlySpendLimit: -1 }, 'monthly_spend_limit'],
      [{ monthlySpendLimit: Number.NaN }, 'monthly_spend_limit'],
      [{ maxConcurrentSessions: 0 }, 'max_concurrent_sessions'],
      [{ maxConcurrentSessions: 1.5 }, 'max_concurrent_sessions'],
      [{ ipRules: ['10.0.0.0/33'] }, 'ip_rules'],
      [{ ipRules: ['2001:db8::/129'] }, 'ip_rules'],
      [{ ipRules: ['not-an-ip'] }, 'ip_rules'],
      [{ ipRules: ['10.0.0.0/8/8'] }, 'ip_rules'],
      [{ webhookUrl: 'ftp://hooks.example.com/x' }, 'webhook_url'],
      [{ webhookUrl: 'hooks.example.com/x' }, 'webhook_url'],
      [{ webhookUrl: `https://hooks.example.com/${'a'.repeat(2100)}` }, 'webhook_url'],
      // Syntax is fine but nothing answers the verification request: not saved.
      [{ webhookUrl: 'http://127.0.0.1:9/unreachable' }, 'webhook_url'],
      // A valid change next to an invalid one: the valid one must not be saved either.
      [{ name: 'changed', ipRules: ['300.0.0.1'] }, 'ip_rules'],
    ];
    for (const [input, field] of bad) {
      await expect(keys().updateKey(k.key_id, input), JSON.stringify(input).slice(0, 80)).rejects.toMatchObject({
        code: 'validation_failed',
        details: { field },
      });
    }
    expect(await row(k.key_id)).toEqual(before);
    expect((await me(k.api_key)).name).toBe('keep me');
  });

  // createKey validates every setting before it creates an account (an empty account would also
  // suppress the first-start key on a fresh database).
  it('a refused createKey leaves no account behind', async () => {
    const count = async () => (await t.app.deps.database.db.selectFrom('accounts').select('id').execute()).length;
    const before = await count();
    await expect(keys().createKey({ ipRules: ['10.0.0.0/40'] })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(keys().createKey({ name: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await count()).toBe(before);
  });

  it('unknown and non-UUID key ids are validation errors, not crashes', async () => {
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', "'; drop table api_keys; --", '']) {
      await expect(keys().updateKey(id, { name: 'x' })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(keys().deleteKey(id)).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(keys().setAccountFlags(id, { blocked: true })).rejects.toMatchObject({ code: 'validation_failed' });
    }
    const k = await keys().createKey({});
    expect((await me(k.api_key)).name).toBe('API key');
  });

  it('a deleted key cannot be changed or deleted again', async () => {
    const k = await keys().createKey({});
    await keys().deleteKey(k.key_id);
    await expect(keys().updateKey(k.key_id, { disabled: false })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(keys().deleteKey(k.key_id)).rejects.toMatchObject({ code: 'validation_failed' });
    expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).body.data.error_code).toBe('auth_invalid_api_key');
  });
});
