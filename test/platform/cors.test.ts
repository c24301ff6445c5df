/**
 * CORS by path (ARCHITECTURE.md "Request flow"): public routes (viewer, public token
 * exchange, version, shared task pages) allow any origin without credentials; everything else
 * only PARLEY_CORS_ORIGINS. Preflights are answered before authentication.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const EXPOSED = 'Retry-After, X-Request-Id, Content-Range, Accept-Ranges';

describe('CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PARLEY_CORS_ORIGINS: 'https://app.example' } });
  });
  afterAll(() => t?.close());

  const req = (path: string, init: RequestInit = {}) => fetch(`${t.url}${path}`, init);

  it('public route: any origin, exposed headers, also without an Origin header; the same answer for every origin, so no Vary', async () => {
    for (const headers of [{ origin: 'https://elsewhere.example' }, {}] as Record<string, string>[]) {
      const r = await req('/api/v1/version', { headers });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-expose-headers')).toBe(EXPOSED);
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
      expect(r.headers.get('vary')).toBeNull();
    }
  });

  it('private route: the allowed origin is echoed; another origin or none gets no CORS headers', async () => {
    const allowed = await req('/api/v1/me/plan', { headers: { origin: 'https://app.example' } });
    expect(allowed.status).toBe(401);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    expect(allowed.headers.get('vary')).toBe('Origin');
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      const r = await req('/api/v1/me/plan', { headers });
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      expect(r.headers.get('access-control-expose-headers')).toBeNull();
      expect(r.headers.get('vary')).toBe('Origin');
    }
  });

  it('preflight of a private route from an allowed origin: 204 with methods and the asked headers', async () => {
    const r = await req('/api/v1/me/plan', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(r.headers.get('access-control-allow-headers')).toBe('x-api-key');
    expect(r.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers');
    expect(r.headers.get('content-length')).toBe('0');
  });

  it('preflight of a public route from any origin: 204 with GET, POST, OPTIONS', async () => {
    const r = await req('/api/v1/viewer/anything', {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(r.headers.get('access-control-allow-headers')).toBeNull();
    expect(r.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers');
  });

  it('preflight from an origin not allowed: 404; a preflight without Origin or method: 400', async () => {
    const refused = await req('/api/v1/me/plan', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const bad = await req('/api/v1/version', { method: 'OPTIONS', headers: { origin: 'https://x.example' } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('Invalid Preflight Request');
  });
});
