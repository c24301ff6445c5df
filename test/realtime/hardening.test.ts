/**
 * One message must never take the service down (issue 26, finding 1), on a real server
 * process (`node dist/main.mjs`, the bundle `npm start` runs) with real WebSocket and HTTP clients: a glossary
 * nested 5,000 deep (30 KB) once overflowed JSON.stringify's stack in the `config` handler and
 * the process exited, cutting every session; the same body on POST /api/v1/glossary/validate
 * answered 500. Every JSON value is now bounded before anything walks it
 * (src/platform/json-bounds.ts), and an exception in one message's handler costs that
 * message only (PARLEY_TEST_FAULT_AT stands in for such a bug: src/platform/crash-points.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api, startTestApp } from '../support/app.js';
import { fundedAccount } from '../support/seeded-tasks.js';
import { localServerEnv, type ServerProcess, startServer } from '../support/server.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read messages freely
type Msg = { type: string; data: any };

/** `{"a":` x depth, 1, `}` x depth: the probe (30 KB at 5,000). */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('one message never takes the service down (issue 26, finding 1)', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let base: string;
  let key: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-hardening-'));
    const seeding = await startTestApp({ reuse: { dataDir } });
    try {
      key = (await fundedAccount(seeding, 100, 'hardening')).key;
    } finally {
      await seeding.app.close();
    }
    const local = await localServerEnv(dataDir, { LOG_LEVEL: 'error', PARLEY_TEST_FAULT_AT: 'ws.action.set_name' });
    base = local.base;
    server = startServer(local.env, 90_000);
    await server.ready;
  }, 120_000);
  afterAll(async () => {
    if (server) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const alive = () => server.child.exitCode === null && server.child.signalCode === null;

  /** A ticketed WebSocket client that collects the messages in order. */
  async function client() {
    const t = await api(base, 'POST', '/api/v1/auth/ticket', { key });
    expect(t.status).toBe(200);
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, [`ticket.${t.body.data.ticket}`]);
    const messages: Msg[] = [];
    let closed: { code: number } | null = null;
    ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as Msg));
    ws.on('close', (code) => {
      closed = { code };
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    /** The first message from `from` on that `pred` accepts; fails when the socket closes or nothing comes within 5 s. */
    const next = async (pred: (m: Msg) => boolean, from = 0): Promise<Msg> => {
      const until = Date.now() + 5000;
      for (;;) {
        const m = messages.slice(from).find(pred);
        if (m) return m;
        if (closed) throw new Error(`closed ${(closed as { code: number }).code} before the answer; process alive: ${alive()}`);
        if (Date.now() > until) throw new Error(`no answer; got ${JSON.stringify(messages.slice(from)).slice(0, 500)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    /** Health round trip: the connection still works. */
    const pong = async () => {
      const from = messages.length;
      ws.send(JSON.stringify({ type: 'health', data: {} }));
      return next((m) => m.type === 'health' && m.data.action === 'pong', from);
    };
    return { ws, messages, next, pong };
  }

  /** Another client's WebSocket and REST requests are served. */
  async function othersServed(): Promise<void> {
    expect(alive(), server.output().slice(-2000)).toBe(true);
    const other = await client();
    expect((await other.pong()).data.state).toBe('connected');
    other.ws.close(1000);
    expect((await api(base, 'GET', '/api/v1/version')).status).toBe(200);
  }

  it.each(['terminology', 'fuzzy_correction', 'translation_dict'])(
    'config with %s nested 5,000 deep gets invalid_data; the connection, the process and other clients go on',
    async (field) => {
      const c = await client();
      const frame = `{"type":"voice-translation","data":{"action":"config","${field}":${deepObject(5000)}}}`;
      expect(frame.length).toBeGreaterThan(30_000);
      c.ws.send(frame);
      const err = await c.next((m) => m.type === 'error');
      expect(err.data).toMatchObject({
        error_code: 'invalid_data',
        severity: 'error',
        details: { message_type: 'voice-translation', reason: 'too_deep', limit: 64 },
      });
      // The same connection still works (invalid_data does not close it), and so does everyone else.
      await c.pong();
      await othersServed();
      c.ws.close(1000);
    },
  );

  it('a glossary nested deep inside a JSON string (the import-form shape) gets config_invalid_entry', async () => {
    const c = await client();
    c.ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'config', terminology: deepObject(100_000) } }));
    const err = await c.next((m) => m.type === 'error');
    expect(err.data).toMatchObject({ error_code: 'config_invalid_entry', details: { problems: [{ field: 'terminology', limit: 64 }] } });
    await c.pong();
    c.ws.close(1000);
    await othersServed();
  });

  it('POST /api/v1/glossary/validate with a body nested 5,000 deep answers 422 validation_failed, not 500', async () => {
    const r = await api(base, 'POST', '/api/v1/glossary/validate', { key, body: `{"terminology":${deepObject(5000)}}` });
    expect(r.status).toBe(422);
    expect(r.body.data).toMatchObject({ error_code: 'validation_failed', details: { field: 'body', reason: 'too_deep', limit: 64 } });
    // A deep JSON string field reaches the glossary parser: its own validation code.
    const s = await api(base, 'POST', '/api/v1/glossary/validate', { key, body: { fuzzy_correction: deepObject(5000) } });
    expect(s.status).toBe(400);
    expect(s.body.data).toMatchObject({ error_code: 'config_invalid_entry', details: { field: 'fuzzy_correction', limit: 64 } });
    // Every JSON body is bounded, whatever the route.
    const b = await api(base, 'POST', '/api/v1/broadcasts', { key, body: `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}` });
    expect(b.status).toBe(422);
    expect(b.body.data).toMatchObject({ error_code: 'validation_failed', details: { reason: 'too_deep' } });
    await othersServed();
  });

  it('a translation_dict of 60,000 empty entries (180 KB) is refused at once and briefly, not after a quadratic grouping', async () => {
    const began = performance.now();
    const r = await api(base, 'POST', '/api/v1/glossary/validate', { key, body: `{"translation_dict":[${'{},'.repeat(59_999)}{}]}` });
    const ms = performance.now() - began;
    expect(r.status).toBe(400);
    expect(r.body.data.error_code).toBe('config_invalid_entry');
    // The first 100 problems are listed and the rest counted: every one listed made a 7 MB answer.
    expect(r.body.data.details.problems).toHaveLength(100);
    // 60,000 invalid entries and the one count over the 3,000 entries per language.
    expect(r.body.data.details.problems_total).toBe(60_001);
    // Grouping the older array format copied the list per entry: about 20 s for this body, minutes for 1 MB.
    expect(ms).toBeLessThan(3000);
    const version = performance.now();
    expect((await api(base, 'GET', '/api/v1/version')).status).toBe(200);
    expect(performance.now() - version).toBeLessThan(1000);
  });

  it('an exception thrown in one message handler answers internal_error; the connection and the process go on', async () => {
    const c = await client();
    c.ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'set_name', name: 'x' } }));
    const err = await c.next((m) => m.type === 'error');
    expect(err.data).toMatchObject({
      error_code: 'internal_error',
      severity: 'error',
      details: { message_type: 'voice-translation', action: 'set_name' },
    });
    await c.pong();
    await othersServed();
    // Logged at error level with the action, for the operator.
    const logged = server
      .output()
      .split('\n')
      .filter((l) => l.includes('message handling failed'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]).toContain('"level":50');
    expect(logged[0]).toContain('set_name');
    c.ws.close(1000);
  });
});
