import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ok } from '../../src/platform/http/reply.js';
import { InMemoryRateLimiter, rateLimitHook } from '../../src/platform/rate-limit.js';
import { api, testConfig } from '../support/app.js';
import { SERVER_ARGS } from '../support/server.js';

describe('HTTP conventions on a real socket', () => {
  let url: string;
  let close: () => Promise<void>;
  let slowStarted: () => void;
  const slowStartedP = new Promise<void>((r) => {
    slowStarted = r;
  });

  beforeAll(async () => {
    const config = testConfig(mkdtempSync(join(tmpdir(), 'parley-http-')), 'sqlite', { PARLEY_BODY_LIMIT_BYTES: '2048' });
    const app = await buildApp(config);
    const limiter = new InMemoryRateLimiter();
    // Test-only routes exercising the shared mechanisms.
    app.http.post('/test/echo', { schema: { body: Type.Object({ n: Type.Integer(), s: Type.String({ maxLength: 5 }) }) } }, async (req) =>
      ok(req.body),
    );
    app.http.get('/test/limited', { preHandler: rateLimitHook(limiter, { key: () => 'one', limit: 2, windowMs: 60_000 }) }, async () =>
      ok({ fine: true }),
    );
    app.http.get('/test/slow', async () => {
      slowStarted();
      await new Promise((r) => setTimeout(r, 400));
      return ok({ finished: true });
    });
    app.http.get('/test/boom', async () => {
      throw new Error('secret internals');
    });
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.http.server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    close = () => app.close();
  });
  afterAll(() => close());

  it('schema violations are 422 validation_failed naming the field', async () => {
    const r = await api(url, 'POST', '/test/echo', { body: { n: 'x', s: 'abc' } });
    expect(r.status).toBe(422);
    expect(r.body.data).toMatchObject({ error_code: 'validation_failed', severity: 'error', details: { field: 'n' } });
    const r2 = await api(url, 'POST', '/test/echo', { body: { n: 1 } });
    expect(r2.status).toBe(422);
    expect(r2.body.data.details.field).toBe('s');
  });

  it('malformed JSON is 422 validation_failed, never a 500', async () => {
    const r = await api(url, 'POST', '/test/echo', { body: '{"n": 1,' });
    expect(r.status).toBe(422);
    expect(r.body.data.error_code).toBe('validation_failed');
    expect(r.body.data.details.reason).toBe('malformed_json');
  });

  it('an oversize body is 413 request_too_large', async () => {
    const r = await api(url, 'POST', '/test/echo', { body: { n: 1, s: 'x'.repeat(5000) } });
    expect(r.status).toBe(413);
    expect(r.body.data.error_code).toBe('request_too_large');
  });

  it('an unsupported content type is 415 unsupported_media_type', async () => {
    const r = await api(url, 'POST', '/test/echo', { body: 'n=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    expect(r.body.data.error_code).toBe('unsupported_media_type');
  });

  it('an unexpected failure is 500 internal_error without internals', async () => {
    const r = await api(url, 'GET', '/test/boom');
    expect(r.status).toBe(500);
    expect(r.body.data.error_code).toBe('internal_error');
    expect(JSON.stringify(r.body)).not.toContain('secret internals');
  });

  it('the rate limiter answers 429 too_many_requests with an integer Retry-After', async () => {
    expect((await api(url, 'GET', '/test/limited')).status).toBe(200);
    expect((await api(url, 'GET', '/test/limited')).status).toBe(200);
    const r = await api(url, 'GET', '/test/limited');
    expect(r.status).toBe(429);
    expect(r.body.data.error_code).toBe('too_many_requests');
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('close() lets an in-flight request finish', async () => {
    const pending = api(url, 'GET', '/test/slow');
    await slowStartedP;
    const closing = close();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.data.finished).toBe(true);
    await closing;
    await expect(fetch(`${url}/api/v1/version`)).rejects.toThrow();
  });
});

describe('the service process', () => {
  it('starts with the configured port, answers, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-main-'));
    const child = spawn(process.execPath, SERVER_ARGS, {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PARLEY_DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const port = await new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no listen line: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        const m = out.match(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
    });
    const r = await api(`http://127.0.0.1:${port}`, 'GET', '/api/v1/version');
    expect(r.body.data.service).toBe('svc-api');
    // Start-up output is short (docs/deployment.md "Start-up output"): the first-start key with a
    // curl to the real address, the banner, and three info log lines; engine detail is debug.
    const until = Date.now() + 10_000;
    while (!out.includes('  engines: ') && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
    expect(out).toMatch(/API key \(shown once, keep it\): svc_[A-Za-z0-9]{32}/);
    expect(out).toContain(`curl -H "X-API-Key: <key>" http://127.0.0.1:${port}/api/v1/me/plan`);
    expect(out).toContain(`console http://127.0.0.1:${port}/`);
    expect(out).toMatch(/\n {2}engines: .*builtin\/pocketsphinx/);
    // (The request log line of the version call above is not start-up output.)
    const infoLines = out.split('\n').filter((l) => l.startsWith('{') && JSON.parse(l).level === 30 && JSON.parse(l).msg !== 'request');
    expect(infoLines.map((l) => JSON.parse(l).msg)).toEqual([
      expect.stringMatching(/^engines: \d+ ready, \d+ not loaded/),
      'parley listening',
      'first start: created an account and an API key (printed once to stdout)',
    ]);
    expect(out).not.toContain('Server listening');
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(out).toContain('"msg":"stopped"');
  });

  it('refuses to start on invalid configuration, naming the setting', async () => {
    const child = spawn(process.execPath, SERVER_ARGS, {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, PORT: 'abc' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('PORT must be an integer');
  });
});

describe('server-sent events', () => {
  it('streams events with CORS headers kept, and close() ends open streams', async () => {
    const { openSse } = await import('../../src/platform/http/sse.js');
    const app = await buildApp(testConfig(mkdtempSync(join(tmpdir(), 'parley-sse-')), 'sqlite'));
    app.http.get('/api/v1/viewer/test-stream', async (req, reply) => {
      const s = openSse(req, reply, { heartbeatMs: 50 });
      s.send('connected', { message: 'hi' });
      s.send('multi', { text: 'line1\nline2' });
    });
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.http.server.address();
    const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const res = await fetch(`${base}/api/v1/viewer/test-stream`, { headers: { origin: 'https://viewer.example' } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('event: connected\ndata: {"message":"hi"}\n\n');
    expect(text).toContain('event: multi\ndata: {"text":"line1\\nline2"}\n\n');
    const closed = app.close();
    // The stream ends instead of holding the shutdown open.
    for (;;) if ((await reader.read()).done) break;
    await closed;
  });
});
