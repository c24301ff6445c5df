import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, isWellFormedKey } from '../../src/keys/format.js';
import { requireApiKey } from '../../src/platform/auth/hooks.js';
import { createLogger } from '../../src/platform/logging.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';

describe.each(backends())('API keys and authentication (%s)', (backend) => {
  let t: TestApp;
  const logLines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    });
    t = await startTestApp({ backend, logger: createLogger('info', sink), env: { PARLEY_TRUST_PROXY: '1' } });
  });
  afterAll(() => t.close());

  const keys = () => t.app.deps.keys;
  const me = (key?: string, headers: Record<string, string> = {}) => api(t.url, 'GET', '/api/v1/me/key', { key, headers });

  function expectAuthError(r: { status: number; body: { data: Record<string, unknown> } }, status: number, code: string) {
    expect(r.status).toBe(status);
    expect(r.body.data).toMatchObject({ error_code: code, severity: 'fatal', context: 'authentication', request_id: expect.any(String) });
  }

  it('creates svc_ keys of 32 random characters, stored only as a hash', async () => {
    const a = await keys().createKey({ name: 'first' });
    const b = await keys().createKey({ name: 'second' });
    expect(a.api_key).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    expect(a.api_key).not.toBe(b.api_key);
    expect(a.webhook_secret).toMatch(/^[A-Za-z0-9]{64}$/);
    const rows = await t.app.deps.database.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(a.api_key);
    expect(dump).not.toContain(a.api_key.slice(4));
    expect(rows.find((r) => r.id === a.key_id)?.key_hash).toBe(hashKey(a.api_key));
    expect(isWellFormedKey(a.api_key)).toBe(true);
  });

  it('GET /me/key shows the settings, never the key or the secret, and a reduced webhook URL', async () => {
    const k = await keys().createKey({
      name: 'ops',
      monthlySpendLimit: 250,
      maxConcurrentSessions: 3,
      allowAccountPool: false,
      ipRules: ['0.0.0.0/0', '::/0'],
      expiresAt: '2099-01-01T00:00:00Z',
    });
    // Stored directly: saving through the service sends webhook.verify to the URL first.
    await keys().store.updateKey(k.key_id, { webhook_url: 'https://user:pw@hooks.example.com:8443/parley/in?token=abc#frag' }, new Date());
    const r = await me(k.api_key);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      name: 'ops',
      expires_at: '2099-01-01T00:00:00.000Z',
      monthly_spend_limit: 250,
      monthly_spent: 0,
      max_concurrent_sessions: 3,
      allow_account_pool: false,
      webhook_url: 'https://hooks.example.com:8443/parley/in',
      ip_restricted: true,
    });
    const plain = await keys().createKey({});
    const r2 = await me(plain.api_key);
    expect(r2.body.data).toMatchObject({
      monthly_spend_limit: null,
      monthly_spent: null,
      webhook_url: null,
      ip_restricted: false,
      allow_account_pool: true,
    });
    expect(JSON.stringify(r.body)).not.toContain(k.webhook_secret);
  });

  it('auth_missing_api_key: no key, or an empty one', async () => {
    expectAuthError(await me(), 401, 'auth_missing_api_key');
    expectAuthError(await me(''), 401, 'auth_missing_api_key');
  });

  it('auth_invalid_key_format: anything but svc_ + 32 letters and digits', async () => {
    for (const bad of [
      'abc',
      'svc_short',
      `svc_${'a'.repeat(33)}`,
      `key_${'a'.repeat(32)}`,
      `svc_${'a'.repeat(31)}!`,
      `svc_${'é'.repeat(32)}`,
    ]) {
      expectAuthError(await me(bad), 401, 'auth_invalid_key_format');
    }
  });

  it('auth_invalid_api_key: well-formed but unknown, or deleted (at once)', async () => {
    expectAuthError(await me(`svc_${'Z'.repeat(32)}`), 401, 'auth_invalid_api_key');
    const k = await keys().createKey({});
    expect((await me(k.api_key)).status).toBe(200);
    await keys().deleteKey(k.key_id);
    expectAuthError(await me(k.api_key), 401, 'auth_invalid_api_key');
  });

  it('auth_key_disabled and auth_key_expired take effect on the next request', async () => {
    const k = await keys().createKey({});
    await keys().updateKey(k.key_id, { disabled: true });
    expectAuthError(await me(k.api_key), 401, 'auth_key_disabled');
    await keys().updateKey(k.key_id, { disabled: false });
    expect((await me(k.api_key)).status).toBe(200);
    await keys().updateKey(k.key_id, { expiresAt: '2000-01-01T00:00:00Z' });
    expectAuthError(await me(k.api_key), 401, 'auth_key_expired');
  });

  it('requests arriving together each get their own key (PostgreSQL reads them in one statement)', async () => {
    const named = await Promise.all(['a', 'b', 'c', 'd'].map((name) => keys().createKey({ name })));
    const disabled = await keys().createKey({ name: 'off' });
    await keys().updateKey(disabled.key_id, { disabled: true });
    const deleted = await keys().createKey({ name: 'gone' });
    await keys().deleteKey(deleted.key_id);
    const unknown = `svc_${'Y'.repeat(32)}`;
    // Each valid key twice (two requests for one key share its row), all sent at once.
    const sent = [...named, ...named].map((k) => me(k.api_key));
    const [off, gone, none, ...answers] = await Promise.all([me(disabled.api_key), me(deleted.api_key), me(unknown), ...sent]);
    expectAuthError(off, 401, 'auth_key_disabled');
    expectAuthError(gone, 401, 'auth_invalid_api_key');
    expectAuthError(none, 401, 'auth_invalid_api_key');
    expect(answers.map((r) => [r.status, r.body.data.name])).toEqual([...named, ...named].map((k) => [200, k.name]));
  });

  it('auth_account_blocked and auth_user_disabled are 403', async () => {
    const k = await keys().createKey({});
    await keys().setAccountFlags(k.account_id, { blocked: true });
    expectAuthError(await me(k.api_key), 403, 'auth_account_blocked');
    await keys().setAccountFlags(k.account_id, { blocked: false, userDisabled: true });
    expectAuthError(await me(k.api_key), 403, 'auth_user_disabled');
    await keys().setAccountFlags(k.account_id, { userDisabled: false });
    expect((await me(k.api_key)).status).toBe(200);
  });

  it('auth_ip_not_allowed: CIDR rules for IPv4 and IPv6, client address from X-Forwarded-For behind a trusted proxy', async () => {
    const k = await keys().createKey({ ipRules: ['203.0.113.0/24', '2001:db8::/32'] });
    expect((await me(k.api_key, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await me(k.api_key, { 'x-forwarded-for': '2001:db8::1' })).status).toBe(200);
    expectAuthError(await me(k.api_key, { 'x-forwarded-for': '198.51.100.1' }), 403, 'auth_ip_not_allowed');
    expectAuthError(await me(k.api_key, { 'x-forwarded-for': '2001:db9::1' }), 403, 'auth_ip_not_allowed');
    // Without a forwarded address the peer (127.0.0.1) is not in the rules.
    expectAuthError(await me(k.api_key), 403, 'auth_ip_not_allowed');
    await keys().updateKey(k.key_id, { ipRules: ['127.0.0.1'] });
    expect((await me(k.api_key)).status).toBe(200);
    await expect(keys().updateKey(k.key_id, { ipRules: ['10.0.0.0/33'] })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('the query api_key works on SSE routes only; the header wins there; query wins on regenerate-summary', async () => {
    const a = await keys().createKey({});
    const b = await keys().createKey({});
    // REST ignores a key in the query string.
    expectAuthError(await api(t.url, 'GET', `/api/v1/me/key?api_key=${a.api_key}`), 401, 'auth_missing_api_key');
    // The key-source rules, on probe routes that use the app's real Authenticator.
    const auth = t.app.deps.authenticator;
    const { default: Fastify } = await import('fastify');
    const f = Fastify();
    f.get('/sse', { preHandler: requireApiKey(auth, 'header-or-query') }, async (req) => ({ key: req.principal?.keyId }));
    f.get('/regen', { preHandler: requireApiKey(auth, 'query-wins') }, async (req) => ({ key: req.principal?.keyId }));
    await f.listen({ port: 0, host: '127.0.0.1' });
    const port = (f.server.address() as { port: number }).port;
    try {
      const base = `http://127.0.0.1:${port}`;
      expect((await api(base, 'GET', `/sse?api_key=${a.api_key}`)).body.key).toBe(a.key_id);
      expect((await api(base, 'GET', `/sse?api_key=${a.api_key}`, { key: b.api_key })).body.key).toBe(b.key_id);
      expect((await api(base, 'GET', `/regen?api_key=${a.api_key}`, { key: b.api_key })).body.key).toBe(a.key_id);
    } finally {
      await f.close();
    }
  });

  it('keys never appear in logs, from headers or query strings', async () => {
    const k = await keys().createKey({});
    await me(k.api_key);
    await api(t.url, 'GET', `/api/v1/me/key?api_key=${k.api_key}`);
    await api(t.url, 'GET', `/api/v1/sse/history/transcribe/00000000-0000-4000-8000-000000000000?api_key=${k.api_key}`);
    const logs = logLines.join('');
    expect(logs).toContain('/api/v1/me/key');
    expect(logs).not.toContain(k.api_key);
    expect(logs).not.toContain(k.api_key.slice(4));
  });
});
