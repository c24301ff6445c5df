import { describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/webhooks/sender.js';
import { isForbiddenAddress } from '../../src/webhooks/ssrf.js';
import { startReceiver } from './receiver.js';

describe('webhook SSRF guard', () => {
  it('classifies private, loopback, link-local, multicast, unspecified and mapped addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '100.64.0.1']) {
      expect(isForbiddenAddress(ip), ip).toBe(true);
    }
    for (const ip of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      '::ffff:169.254.1.1',
    ]) {
      expect(isForbiddenAddress(ip), ip).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isForbiddenAddress(ip), ip).toBe(false);
  });

  it('refuses to connect to forbidden targets unless private addresses are allowed', async () => {
    const rx = await startReceiver();
    try {
      const port = new URL(rx.url).port;
      const send = (url: string, allowPrivate: boolean) =>
        postWebhook({ url, body: '{}', headers: { 'Content-Type': 'application/json' }, timeoutMs: 1000, allowPrivate });
      for (const url of [
        rx.url,
        `http://localhost:${port}/hook`,
        `http://[::1]:${port}/hook`,
        'http://10.0.0.1/hook',
        'http://[fc00::1]/hook',
        'http://169.254.169.254/latest/meta-data',
        `http://[::ffff:127.0.0.1]:${port}/hook`,
      ]) {
        const r = await send(url, false);
        expect(r.ok, url).toBe(false);
        expect(r.error, url).toMatch(/non-public address/);
      }
      expect(rx.received).toHaveLength(0);
      const allowed = await send(rx.url, true);
      expect(allowed).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});
