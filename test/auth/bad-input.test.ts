/**
 * Hostile or odd key input at the HTTP edge: non-ASCII header bytes, huge keys, repeated
 * headers and query parameters, bodies on GET. Every answer is a spec code, never a 500.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies freely
type Answer = { status: number; body: any };

/** One raw HTTP/1.1 request (for bytes fetch refuses to send); returns status and JSON body. */
function raw(url: string, head: Buffer | string, body = ''): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(text.slice(9, 12));
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown = bodyText;
      try {
        parsed = JSON.parse(bodyText);
      } catch {
        /* not JSON */
      }
      resolve({ status, body: parsed });
    });
    socket.write(Buffer.concat([Buffer.from(head), Buffer.from('Connection: close\r\n\r\n'), Buffer.from(body)]));
  });
}

describe.each(backends())('bad key input over HTTP (%s)', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ backend });
    key = (await t.app.deps.keys.createKey({})).api_key;
  });
  afterAll(() => t.close());

  const code = (r: Pick<Answer, 'body'>) => r.body?.data?.error_code;

  it('non-ASCII bytes in X-API-Key are a format error', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key: svc_'),
      Buffer.from('é'.repeat(32), 'latin1'),
      Buffer.from('\r\n'),
    ]);
    const r = await raw(t.url, latin1);
    expect(r.status).toBe(401);
    expect(code(r)).toBe('auth_invalid_key_format');
    const utf8 = await raw(t.url, `GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key: svc_${'ключ'.repeat(8)}\r\n`);
    expect(code(utf8)).toBe('auth_invalid_key_format');
  });

  it('a very long key is a format error; an oversized header block is refused by the server, not a 500', async () => {
    const long = await api(t.url, 'GET', '/api/v1/me/key', { key: `svc_${'a'.repeat(8000)}` });
    expect(long.status).toBe(401);
    expect(code(long)).toBe('auth_invalid_key_format');
    const huge = await raw(t.url, `GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key: svc_${'a'.repeat(70_000)}\r\n`);
    expect(huge.status).toBe(431);
  });

  it('surrounding whitespace is not part of the key (HTTP strips it); inner whitespace is a format error', async () => {
    const padded = await raw(t.url, `GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key:   ${key}  \r\n`);
    expect(padded.status).toBe(200);
    const inner = await api(t.url, 'GET', '/api/v1/me/key', { key: `${key.slice(0, 10)} ${key.slice(10)}` });
    expect(code(inner)).toBe('auth_invalid_key_format');
  });

  it('two X-API-Key headers are not silently resolved to one of them', async () => {
    const r = await raw(t.url, `GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nX-API-Key: ${key}\r\n`);
    expect(r.status).toBe(401);
    expect(['auth_invalid_key_format', 'auth_invalid_api_key']).toContain(code(r));
  });

  it('a JSON body on GET /me/key, malformed or not, does not change the answer', async () => {
    for (const body of ['{"name": ', '{"name":"changed"}']) {
      const r = await raw(
        t.url,
        `GET /api/v1/me/key HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
        body,
      );
      expect(r.status, body).toBeLessThan(500);
      if (r.status !== 200) expect(r.body.data.error_code).toMatch(/^[a-z_]+$/);
      else expect(r.body.data.name).toBe('API key');
    }
    const odd = await api(t.url, 'GET', '/api/v1/me/key?name=hack&webhook_url=x', { key });
    expect(odd.status).toBe(200);
    expect(odd.body.data.name).toBe('API key');
  });

  it('methods other than GET on /me/key do not change the key', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await api(t.url, method, '/api/v1/me/key', { key, body: { name: 'changed', disabled: true } });
      expect(r.status, method).toBe(404);
    }
    const after = await api(t.url, 'GET', '/api/v1/me/key', { key });
    expect(after.status).toBe(200);
    expect(after.body.data.name).toBe('API key');
  });

  it('on SSE routes a repeated api_key query takes the first, and an empty one counts as missing', async () => {
    const task = '00000000-0000-4000-8000-000000000000';
    const twice = await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${task}?api_key=${key}&api_key=svc_bad`);
    expect(code(twice)).toBe('recording_not_found');
    const empty = await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${task}?api_key=`);
    expect(code(empty)).toBe('auth_missing_api_key');
  });
});
