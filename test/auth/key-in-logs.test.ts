/**
 * API keys never reach a log line, whatever way a client spells them: header, SSE query,
 * percent-encoded query names or values (the query parser decodes them, so they authenticate),
 * and refused requests (bad format, unknown key, errors on the route).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';

const TASK = '00000000-0000-4000-8000-000000000000';

describe.each(backends())('keys in logs (%s)', (backend) => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    // debug: the most a deployment would log.
    t = await startTestApp({ backend, logger: createLogger('debug', sink) });
  });
  afterAll(() => t.close());

  /** The key's random part, percent-encoded character by character (valid, decodes to the same key). */
  const encodeAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

  it('plain header and query keys are redacted', async () => {
    const k = await t.app.deps.keys.createKey({});
    const secretPart = k.api_key.slice(4);
    lines.length = 0;
    await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key });
    await api(t.url, 'GET', `/api/v1/me/key?api_key=${k.api_key}`);
    await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${TASK}?api_key=${k.api_key}`);
    await api(t.url, 'GET', `/api/v1/sse/history/transcribe/not-a-uuid?x=1&api_key=${k.api_key}`);
    await api(t.url, 'GET', '/api/v1/me/key', { key: `${k.api_key}x` });
    const log = lines.join('');
    expect(log).toContain('/api/v1/sse/history/transcribe');
    expect(log).not.toContain(secretPart);
  });

  async function expectRedacted(variants: (key: string) => string[]) {
    const k = await t.app.deps.keys.createKey({});
    const secretPart = k.api_key.slice(4);
    for (const q of variants(k.api_key)) {
      lines.length = 0;
      const r = await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${TASK}?${q}`);
      // The key was accepted (the task simply does not exist), so it was a usable secret in the URL.
      expect(r.body.data.error_code, q).toBe('recording_not_found');
      const log = lines.join('');
      expect(log, q).toContain('/api/v1/sse/history/transcribe');
      expect(log, `key leaked for ${q}`).not.toContain(secretPart);
    }
  }

  it('percent-encoded query keys that authenticate are redacted too', async () => {
    await expectRedacted((key) => [`api%5Fkey=${key}`, `api_key=svc%5F${key.slice(4)}`, `api_key=${encodeAll(key)}`]);
  });

  // Both the parameter name and the "svc_" prefix percent-encoded: the query parser decodes both, so the key
  // authenticates; redactSecrets decodes names and values before matching.
  it('a key whose parameter name and prefix are both percent-encoded is redacted', async () => {
    await expectRedacted((key) => [`%61pi_key=svc%5f${key.slice(4)}`, `api%5Fkey=${encodeAll(key)}`]);
  });
});
