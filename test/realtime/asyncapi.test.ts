/**
 * The AsyncAPI document cannot drift from the protocol code: every action the connection
 * dispatches (connection.ts handlers and control actions) and every event the server emits
 * (src/realtime, the session events of src/stream) is documented, and nothing documented is
 * missing from the code; a real connection knows every documented action; every error code
 * listed exists in the registry. The document and its page are served.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncApiDocument } from '../../src/asyncapi.js';
import { ERRORS } from '../../src/platform/errors/registry.js';
import { ACTIONS, CONNECTION_ERRORS, EVENTS } from '../../src/realtime/asyncapi.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { connect, ticketFor } from './support.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const read = (...p: string[]) => readFileSync(join(SRC, ...p), 'utf8');
const all = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => m[1] as string);

/** Actions the connection dispatches, read from its code. */
function actionsInCode(): string[] {
  const conn = read('realtime', 'connection.ts');
  const block = conn.slice(conn.indexOf('const handlers'), conn.indexOf('};', conn.indexOf('const handlers')));
  const handlers = all(/^\s{6}([a-z_]+):/gm, block);
  const control = all(/'([a-z_]+)'/g, /const CONTROL[^;]*;/.exec(conn)?.[0] ?? '');
  expect(handlers.length).toBeGreaterThan(5);
  expect(control).toEqual(['pause', 'resume', 'stop']);
  return [...new Set([...handlers, ...control])].sort();
}

/** Events the server sends on the owner's WebSocket, read from the code. */
function eventsInCode(): string[] {
  const found = new Set<string>();
  // The socket (connection.ts) and the session it hands actions to (realtime/session/) send them.
  const files = [
    ...readdirSync(join(SRC, 'realtime')).map((f) => ['realtime', f]),
    ...readdirSync(join(SRC, 'realtime', 'session')).map((f) => ['realtime', 'session', f]),
  ].filter((p) => p.at(-1)?.endsWith('.ts') && p.at(-1) !== 'asyncapi.ts');
  for (const f of files) {
    const text = read(...f);
    for (const e of all(/eventMessage\('([a-z_]+)'/g, text)) found.add(e);
    for (const e of all(/emit\('([a-z_]+)'/g, text)) found.add(e);
    for (const e of all(/broadcastAction\('[a-z_]+', '([a-z_]+)'/g, text)) found.add(e);
    for (const e of all(/publish\(\{ event: '([a-z_]+)'/g, text)) found.add(e);
  }
  // Session events (recording, finalization, speaker edits) reach the socket as they are.
  const events = read('stream', 'events.ts');
  for (const e of all(/event: '([a-z_]+)'/g, events)) found.add(e);
  return [...found].sort();
}

describe('AsyncAPI document of the WebSocket protocol', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 60_000);
  afterAll(() => t?.close());

  it('documents exactly the actions the connection dispatches', () => {
    expect(Object.keys(ACTIONS).sort()).toEqual(actionsInCode());
  });

  it('documents exactly the events the server sends', () => {
    const documented = Object.keys(EVENTS).sort();
    expect(documented).toEqual(eventsInCode());
  });

  it('every error code it lists is in the registry, and each action lists its errors', () => {
    for (const [name, a] of Object.entries(ACTIONS)) {
      expect(a.errors.length, name).toBeGreaterThan(0);
      for (const c of a.errors) expect(Object.hasOwn(ERRORS, c), `${name}: ${c}`).toBe(true);
    }
    for (const c of CONNECTION_ERRORS) expect(Object.hasOwn(ERRORS, c), c).toBe(true);
  });

  it('a real connection knows every documented action (none is "unknown")', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    for (const action of Object.keys(ACTIONS).filter((a) => a !== 'start' && a !== 'audio')) {
      cl.ws.send(JSON.stringify({ type: 'voice-translation', data: { action } }));
      cl.ws.send(JSON.stringify({ type: 'health', data: {} }));
      // Whatever the action answers before start, it is never "unknown action"; the pong marks its end.
      for (;;) {
        const m = await cl.next();
        if (m.type === 'health') break;
        expect(m.data.message ?? '', action).not.toMatch(/Unknown or unsupported action/);
      }
    }
    cl.ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'no_such_action' } }));
    expect((await cl.next()).data.message).toMatch(/Unknown or unsupported action/);
    cl.ws.close();
  });

  it('is served as AsyncAPI 3 JSON with a page that renders it', async () => {
    const res = await api(t.url, 'GET', '/asyncapi.json');
    expect(res.status).toBe(200);
    expect(res.body.asyncapi).toBe('3.0.0');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(asyncApiDocument())));
    const messages = Object.keys(res.body.channels.live.messages);
    expect(messages).toEqual(expect.arrayContaining(['action.start', 'event.session_started', 'event.result', 'error', 'health']));
    // Every operation names a message of its own channel (live: the WebSocket; viewer: the broadcast viewers' SSE).
    for (const op of Object.values(res.body.operations) as { channel: { $ref: string }; messages: { $ref: string }[] }[]) {
      const channel = op.channel.$ref.split('/').pop()!;
      for (const m of op.messages) {
        expect(m.$ref.startsWith(`#/channels/${channel}/messages/`)).toBe(true);
        expect(Object.keys(res.body.channels[channel].messages)).toContain(m.$ref.split('/').pop());
      }
    }
    const page = await fetch(`${t.url}/asyncapi`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('/asyncapi.js');
    const script = await fetch(`${t.url}/asyncapi.js`);
    expect(await script.text()).toContain("fetch('/asyncapi.json')");
  });
});
