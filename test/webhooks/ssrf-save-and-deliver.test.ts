/**
 * SSRF end to end (issue 26, finding 6): with private targets not allowed (the production
 * default), a webhook URL or caption sink naming a loopback receiver through an IPv6 form
 * that embeds 127.0.0.1 is refused when saved (422 validation_failed, spec: Webhooks rule 9
 * and the error table), and a delivery to it never opens a connection. A real listener on
 * every local address (dual-stack `::`) counts connections: it must see none.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors/app-error.js';
import { postWebhook } from '../../src/webhooks/sender.js';
import { realKey } from '../billing/support.js';
import { newBroadcast } from '../broadcasts/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';

const FORMS = ['[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[::ffff:7f00:1]', '2130706433', '0x7f.1', '127.1'];

describe('webhook targets that hide a loopback address', () => {
  let t: TestApp;
  let listener: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '::', resolve));
    port = (listener.address() as { port: number }).port;
    t = await startTestApp({ env: { PARLEY_WEBHOOK_ALLOW_PRIVATE: '0' } });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => listener?.close(() => resolve()));
  });

  it.each(FORMS)('a key-level webhook_url at http://%s:PORT/ is not saved (validation_failed, 422) and nothing connects', async (host) => {
    const url = `http://${host}:${port}/hook`;
    const err = await t.app.deps.keys.createKey({ webhookUrl: url }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect({ code: e.code, status: e.status }).toEqual({ code: 'validation_failed', status: 422 });
    expect(JSON.stringify(e.details)).toMatch(/non-public address/);
    expect(connections).toBe(0);
  });

  it('a caption sink at such a URL is refused over HTTP with 422 validation_failed naming the field', async () => {
    const k = await realKey(t);
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });
    for (const host of FORMS) {
      const r = await api(t.url, 'PUT', `/api/v1/broadcasts/${b.id}/caption-sinks`, {
        key: k.key,
        body: { caption_sinks: [{ type: 'zoom', url: `http://${host}:${port}/closedcaption?id=1` }] },
      });
      expect(r.status, host).toBe(422);
      expect(r.body.data, host).toMatchObject({ error_code: 'validation_failed', details: { field: 'caption_sinks[0].url' } });
    }
    expect(connections).toBe(0);
  });

  it('a delivery to such a URL (saved before this check existed) is refused before any connection', async () => {
    for (const host of FORMS) {
      const r = await postWebhook({
        url: `http://${host}:${port}/hook`,
        body: '{}',
        headers: { 'Content-Type': 'application/json' },
        timeoutMs: 2000,
        allowPrivate: false,
      });
      expect(r, host).toMatchObject({ ok: false, statusCode: null });
      expect(r.error, host).toMatch(/non-public address/);
    }
    expect(connections).toBe(0);
  });
});
