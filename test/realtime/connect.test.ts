import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock, startBillingApp } from '../billing/support.js';
import { backends, type TestApp } from '../support/app.js';
import { connect, ticketAndKey, ticketFor } from './support.js';

describe.each(backends())('WebSocket connect at /ws (%s)', (backend) => {
  const c = clock('2026-03-10T12:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, c);
  });
  afterAll(() => t?.close());

  it('accepts a ticket once, echoes the subprotocol and answers health', async () => {
    const tk = await ticketFor(t);
    const cl = await connect(t, [`ticket.${tk}`]);
    expect(cl.protocol).toBe(`ticket.${tk}`);
    cl.send({ type: 'health', data: { action: 'ping' } });
    const pong = await cl.next();
    expect(pong).toMatchObject({ type: 'health', data: { action: 'pong', state: 'connected' } });
    cl.ws.close();

    const again = await connect(t, [`ticket.${tk}`]);
    const err = await again.next();
    expect(err).toMatchObject({ type: 'error', data: { error_code: 'ticket_already_used', severity: 'fatal' } });
    expect((await again.closed).code).toBe(4001);
  });

  it('refuses unknown and expired tickets with their own codes', async () => {
    const bad = await connect(t, ['ticket.' + 'A'.repeat(32)]);
    expect((await bad.next()).data.error_code).toBe('ticket_invalid');
    expect((await bad.closed).code).toBe(4001);

    const tk = await ticketFor(t);
    c.advance(61_000);
    const late = await connect(t, [`ticket.${tk}`]);
    expect((await late.next()).data.error_code).toBe('ticket_expired');
    expect((await late.closed).code).toBe(4001);
  });

  it("applies the key's IP rules at connect", async () => {
    // The rule changes after the ticket was issued: the connect itself is checked.
    const { ticket: tk, keyId } = await ticketAndKey(t);
    await t.app.deps.keys.updateKey(keyId, { ipRules: ['10.9.9.9'] });
    const cl = await connect(t, [`ticket.${tk}`]);
    expect((await cl.next()).data.error_code).toBe('auth_ip_not_allowed');
    expect((await cl.closed).code).toBe(4003);
  });

  it('reports bad messages and keeps the connection', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.send('not json');
    expect((await cl.next()).data.error_code).toBe('invalid_data');
    cl.send('[1,2]');
    expect((await cl.next()).data.error_code).toBe('invalid_data');
    cl.send({ type: 'voice-translation', data: { action: 'dance' } });
    expect((await cl.next()).data).toMatchObject({
      error_code: 'internal_error',
      details: { message_type: 'voice-translation', action: 'dance' },
    });
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    expect((await cl.next()).data.error_code).toBe('session_not_started');
    cl.send({ type: 'voice-translation', data: { action: 'pause' } });
    expect((await cl.next()).data.error_code).toBe('session_not_started');
    cl.ws.send(Buffer.alloc(640));
    expect((await cl.next()).data).toMatchObject({
      error_code: 'session_not_started',
      details: { message_type: 'binary', action: 'audio' },
    });
    cl.send({ type: 'health', data: {} });
    expect((await cl.next()).type).toBe('health');
    cl.ws.close();
  });

  it('a message flood is refused with invalid_data (message_rate) and, kept up, closed with 4029', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    // Burst 100, 50/s: 150 at once leave about 50 refused, more than the 20 violations in a row allowed.
    for (let i = 0; i < 150; i++) cl.send({ type: 'health', data: {} });
    const refused = await cl.next((m) => m.type === 'error');
    expect(refused.data).toMatchObject({ error_code: 'invalid_data', details: { reason: 'message_rate', limit_per_second: 50 } });
    expect((await cl.closed).code).toBe(4029);
    const answered = cl.messages.filter((m) => m.type === 'health').length;
    expect(answered).toBeGreaterThanOrEqual(100);
    expect(answered).toBeLessThan(150);
  });

  it('closes a 10 MB frame with 1009', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.ws.send(Buffer.alloc(10 * 1024 * 1024));
    expect((await cl.closed).code).toBe(1009);
  });
});

describe.each(backends())('WebSocket client address behind a trusted proxy (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBillingApp(backend, clock(new Date().toISOString()), { PARLEY_TRUST_PROXY: '1' });
  });
  afterAll(() => t.close());

  it('IP rules at connect use the forwarded client address, as REST does', async () => {
    const { default: WebSocket } = await import('ws');
    const open = async (headers: Record<string, string>) => {
      const { ticket, keyId } = await ticketAndKey(t);
      await t.app.deps.keys.updateKey(keyId, { ipRules: ['203.0.113.0/24'] });
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, [`ticket.${ticket}`], { headers });
      const first = new Promise<{ type: string; data: { error_code?: string } } | null>((resolve) => {
        ws.on('message', (d) => resolve(JSON.parse(d.toString())));
        ws.on('close', () => resolve(null));
      });
      await new Promise((r) => ws.on('open', r));
      ws.send(JSON.stringify({ type: 'health', data: {} }));
      const msg = await first;
      ws.close();
      return msg;
    };
    expect(await open({ 'x-forwarded-for': '203.0.113.7' })).toMatchObject({ type: 'health' });
    expect(await open({ 'x-forwarded-for': '198.51.100.1' })).toMatchObject({ data: { error_code: 'auth_ip_not_allowed' } });
  });
});
