/**
 * The viewers' REST endpoints (no API key): the public view with every field of the spec's
 * "Broadcast (public view)", the password check and its viewer_access_token (24 hours,
 * stored hashed), every error code, CORS for pages on any domain, and the caption stream's
 * heartbeat.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, type TestApp } from '../support/app.js';
import { clock, expectError, newBroadcast, onAir, openViewer, realKey, startBroadcastApp, viewer } from './support.js';

describe.each(backends())('viewer endpoints (%s)', (backend) => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startBroadcastApp(backend, c);
    key = (await realKey(t)).key;
  });
  afterAll(() => t?.close());

  const view = (token: string, headers: Record<string, string> = {}) => viewer(t, 'GET', `/api/v1/viewer/broadcasts/${token}`, { headers });
  const verify = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    viewer(t, 'POST', `/api/v1/viewer/broadcasts/${token}/verify`, { body, headers });

  it('GET shows every public-view field; tts_voices per translation language; tts_languages empty when not live; no secrets', async () => {
    const b = await newBroadcast(t, key, {
      name: 'Keynote',
      transcription_languages: ['en-US', 'de'],
      translation_languages: ['es', 'xh'],
      access_type: 'password',
      pass_code: 'hunter2',
      callback_url: 'https://hooks.example.org/x',
    });
    const r = await view(b.token);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id: b.id,
      name: 'Keynote',
      access_type: 'password',
      requires_password: true,
      status: 'pending',
      is_live: false,
      transcription_language: 'en-US',
      transcription_languages: ['en-US', 'de'],
      translation_languages: ['es', 'xh'],
      tts_languages: [],
      tts_voices: {
        es: [
          { voice_name: 'espeak-es-female-1', display_name: expect.any(String), gender: 'Female' },
          { voice_name: 'espeak-es-male-1', display_name: expect.any(String), gender: 'Male' },
          { voice_name: 'espeak-es-female-2', display_name: expect.any(String), gender: 'Female' },
          { voice_name: 'espeak-es-male-2', display_name: expect.any(String), gender: 'Male' },
        ],
      },
    });
    expect(JSON.stringify(r.body)).not.toMatch(/hunter2|hooks\.example|token/);
    const pub = await view((await newBroadcast(t, key)).token);
    expect(pub.body.data).toMatchObject({ access_type: 'public', requires_password: false });
  });

  it('an ended broadcast is still found (status ended); unknown and malformed tokens are 401 broadcast_token_invalid', async () => {
    const b = await newBroadcast(t, key);
    await t.app.deps.database.db.updateTable('broadcasts').set({ status: 'ended', token_claim: null }).where('id', '=', b.id).execute();
    expect((await view(b.token)).body.data).toMatchObject({ id: b.id, status: 'ended', is_live: false });
    for (const token of ['zzzz', 'ZZZZ', 'abc', 'abcde', '%2E%2E%2Fa', '%E8%A9%B1%E8%A9%B1']) {
      const r = await view(token);
      expectError(r, 401, 'broadcast_token_invalid');
      expect(r.body.data).toMatchObject({ severity: 'error', context: 'broadcast', request_id: expect.any(String) });
    }
  });

  it('verify on a password channel: a 43-character viewer_access_token valid 24 hours, stored only as its SHA-256', async () => {
    const b = await newBroadcast(t, key, { access_type: 'password', pass_code: 'Pa$$w0rd!' });
    const r = await verify(b.token, { password: 'Pa$$w0rd!' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      viewer_access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: '2026-05-02T10:00:00.000Z',
    });
    const token = r.body.data.viewer_access_token as string;
    const rows = await t.app.deps.database.db.selectFrom('broadcast_viewer_tokens').selectAll().where('broadcast_id', '=', b.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.expires_at).toBe('2026-05-02T10:00:00.000Z');
    // Each verify gives a new token.
    const again = await verify(b.token, { password: 'Pa$$w0rd!' });
    expect(again.body.data.viewer_access_token).not.toBe(token);
  });

  it('verify on a public channel: token null and a display message (Traditional Chinese for zh viewers)', async () => {
    const b = await newBroadcast(t, key);
    const r = await verify(b.token, { password: '' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ viewer_access_token: null, expires_at: null, message: expect.stringMatching(/public/) });
    const zh = await verify(b.token, { password: 'x' }, { 'accept-language': 'zh-TW,zh;q=0.9,en;q=0.5' });
    expect(zh.body.data.message).toMatch(/公開/);
  });

  it('verify errors: 401 broadcast_password_incorrect, 401 broadcast_token_invalid, 422 validation_failed for a missing, non-string or over-long password', async () => {
    const b = await newBroadcast(t, key, { access_type: 'password', pass_code: 'right1' });
    for (const wrong of ['wrong1', '', 'RIGHT1', 'right1 ', 'right']) {
      const r = await verify(b.token, { password: wrong });
      expectError(r, 401, 'broadcast_password_incorrect');
      expect(r.body.data.severity).toBe('error');
    }
    expectError(await verify('zz99', { password: 'right1' }), 401, 'broadcast_token_invalid');
    expectError(await verify(b.token, {}), 422, 'validation_failed', 'password');
    expectError(await verify(b.token, { password: 123456 }), 422, 'validation_failed', 'password');
    expectError(await verify(b.token, { password: ['right1'] }), 422, 'validation_failed', 'password');
    expectError(await verify(b.token, { password: 'right1right1x' }), 422, 'validation_failed', 'password');
    // The details say what is wrong: a wrong type is not reported as a length limit.
    const details = async (body: unknown) => (await verify(b.token, body)).body.data.details;
    expect(await details({})).toEqual({ field: 'password', location: 'body', reason: 'required', expected: 'string' });
    expect(await details({ password: 123456 })).toEqual({ field: 'password', location: 'body', reason: 'type', expected: 'string' });
    expect(await details({ password: 'right1right1x' })).toEqual({ field: 'password', location: 'body', reason: 'too_long', max: 12 });
    expectError(await verify(b.token, '{"password":'), 422, 'validation_failed', 'body');
    expectError(await verify(b.token, [1]), 422, 'validation_failed', 'password');
    // 12 characters is the most accepted (wrong here, so 401, not 422).
    expectError(await verify(b.token, { password: '密碼密碼密碼密碼密碼密碼' }), 401, 'broadcast_password_incorrect');
  });

  it('CORS: any origin, GET and POST, any request headers, no credentials, Retry-After exposed', async () => {
    const b = await newBroadcast(t, key);
    const origin = 'https://viewer-page.example.net';
    const pre = await fetch(`${t.url}/api/v1/viewer/broadcasts/${b.token}/verify`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-viewer-trace' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/GET/);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type,x-viewer-trace');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    for (const r of [
      await view(b.token, { origin }),
      await verify(b.token, { password: 'x' }, { origin }),
      await view('zz00', { origin }),
    ]) {
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
      expect(r.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    }
    // The host's endpoints keep the configured allowlist (none here): no CORS grant.
    const host = await api(t.url, 'GET', '/api/v1/broadcasts', { key, headers: { origin } });
    expect(host.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the caption stream: a heartbeat comment every 15 s, the viewer keeps its seat', async () => {
    const b = await newBroadcast(t, key, { max_viewers: 1 });
    await onAir(t, b.id);
    const v = await openViewer(t, b.token);
    await v.next((e) => e.event === 'connected');
    const opened = Date.now();
    while (!v.comments.includes('heartbeat') && Date.now() - opened < 25_000) await new Promise((r) => setTimeout(r, 200));
    expect(v.comments).toContain('heartbeat');
    // Every 15 s, not more often (a comment keeps proxies from closing an idle stream).
    expect(Date.now() - opened).toBeGreaterThanOrEqual(14_000);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data.viewer_count).toBe(1);
    v.close();
  }, 40_000);

  it('the viewer endpoints need no key and ignore one', async () => {
    const b = await newBroadcast(t, key);
    expect((await view(b.token, { 'x-api-key': 'svc_0000000000000000000000000000000z' })).status).toBe(200);
  });
});
