/**
 * Which client address the IP rules see: the peer address unless PARLEY_TRUST_PROXY is on
 * (so a client cannot pass a rule by sending X-Forwarded-For itself), and IPv4 peers of a
 * dual-stack listener (reported as ::ffff:a.b.c.d) match IPv4 rules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ParleyApp } from '../../src/app.js';
import { api, backends, startTestApp, type TestApp, testConfig } from '../support/app.js';

describe.each(backends())('client address for IP rules (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend });
  });
  afterAll(() => t.close());

  it('X-Forwarded-For is ignored when no proxy is trusted', async () => {
    const k = await t.app.deps.keys.createKey({ ipRules: ['203.0.113.0/24'] });
    const spoofed = await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key, headers: { 'x-forwarded-for': '203.0.113.5' } });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.data).toMatchObject({ error_code: 'auth_ip_not_allowed', severity: 'fatal' });
    await t.app.deps.keys.updateKey(k.key_id, { ipRules: ['127.0.0.0/8'] });
    const direct = await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key, headers: { 'x-forwarded-for': '203.0.113.5' } });
    expect(direct.status).toBe(200);
  });

  it('IP rules are checked after the key is known: a bad key from a refused address still says why the key is bad', async () => {
    const r = await api(t.url, 'GET', '/api/v1/me/key', { key: `svc_${'Q'.repeat(32)}` });
    expect(r.body.data.error_code).toBe('auth_invalid_api_key');
  });
});

describe('dual-stack listener', () => {
  let app: ParleyApp;
  let dataDir: string;
  let port: number;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-ip-'));
    app = await buildApp(testConfig(dataDir, 'sqlite'));
    await app.http.listen({ port: 0, host: '::' });
    port = (app.http.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an IPv4 client seen as ::ffff:127.0.0.1 matches the rule 127.0.0.1, and is refused by an IPv6-only rule', async () => {
    const k = await app.deps.keys.createKey({ ipRules: ['127.0.0.1'] });
    const ok = await api(`http://127.0.0.1:${port}`, 'GET', '/api/v1/me/key', { key: k.api_key });
    expect(ok.status).toBe(200);
    await app.deps.keys.updateKey(k.key_id, { ipRules: ['::1'] });
    const refused = await api(`http://127.0.0.1:${port}`, 'GET', '/api/v1/me/key', { key: k.api_key });
    expect(refused.body.data.error_code).toBe('auth_ip_not_allowed');
    const v6 = await api(`http://[::1]:${port}`, 'GET', '/api/v1/me/key', { key: k.api_key });
    expect(v6.status).toBe(200);
  });
});
