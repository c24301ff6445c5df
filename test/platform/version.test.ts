import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../support/app.js';

describe('version and error conventions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET /api/v1/version reports svc-api, the interface version and the build, without auth', async () => {
    const r = await api(t.url, 'GET', '/api/v1/version');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ service: 'svc-api', version: '1.24.1', build: expect.stringMatching(/^0\.1\.0\+/) });
  });

  it('GET /version reports svc-realtime', async () => {
    const r = await api(t.url, 'GET', '/version');
    expect(r.status).toBe(200);
    expect(r.body.data.service).toBe('svc-realtime');
    expect(r.body.data.version).toBe('1.24.1');
  });

  it('an unknown route is a 404 with the standard error object and the request id', async () => {
    const r = await api(t.url, 'GET', '/api/v1/nope', { headers: { 'x-request-id': 'req-123' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toBe('req-123');
    expect(r.body).toEqual({
      data: {
        error_code: 'not_found',
        severity: 'error',
        message: expect.any(String),
        context: 'request',
        request_id: 'req-123',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        details: { method: 'GET', path: '/api/v1/nope' },
      },
    });
  });

  it('serves the OpenAPI document and a browsable page', async () => {
    const r = await api(t.url, 'GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toContain('/api/v1/version');
    const page = await fetch(`${t.url}/api/v1/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  });

  it('public routes allow any origin without credentials; private routes follow the allowlist', async () => {
    const pub = await fetch(`${t.url}/api/v1/version`, { headers: { origin: 'https://example.org' } });
    expect(pub.headers.get('access-control-allow-origin')).toBe('*');
    expect(pub.headers.get('access-control-allow-credentials')).toBeNull();
    expect(pub.headers.get('access-control-expose-headers')).toContain('Retry-After');
    const priv = await fetch(`${t.url}/api/v1/me/plan`, { headers: { origin: 'https://example.org' } });
    expect(priv.headers.get('access-control-allow-origin')).toBeNull();
  });
});
