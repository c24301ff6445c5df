/**
 * WebSocket half of the fuzzer: every action of the AsyncAPI description
 * (src/realtime/asyncapi.ts), sent with generated bad fields, plus frames that are not the
 * protocol at all (not JSON, wrong shapes, unknown types, random and oversized binary), and
 * fields replaced by structures that break recursive code (nesting thousands deep, huge
 * arrays, prototype keys, numbers past double precision: values.ts `structural`). After
 * each frame a `health` message must be answered within the deadline (the connection still
 * works); an `internal_error` for a known action, a 1006/1011 close or no pong is a finding.
 * Some connections first start a real recording so the actions run inside a session.
 */
import WebSocket from 'ws';
import { ACTIONS } from '../../src/realtime/asyncapi.js';
import type { Prng } from './prng.js';
import type { Finding } from './rest.js';
import { badValue, brief, hugeString, mutate, plausible, type Schema, structural, toJson } from './values.js';

const CONTROL = ['pause', 'resume', 'stop'];
const KNOWN = new Set([...Object.keys(ACTIONS), ...CONTROL]);

// biome-ignore lint/suspicious/noExplicitAny: messages are read freely
type Msg = { type: string; data: any };

interface Conn {
  ws: WebSocket;
  messages: Msg[];
  closed: { code: number; reason: string } | null;
  waiters: Set<() => void>;
}

function open(url: string, ticket: string, deadlineMs: number): Promise<Conn | { failed: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, [`ticket.${ticket}`], { handshakeTimeout: deadlineMs });
    const conn: Conn = { ws, messages: [], closed: null, waiters: new Set() };
    ws.on('message', (d, isBinary) => {
      if (isBinary) return;
      try {
        conn.messages.push(JSON.parse(d.toString()) as Msg);
      } catch {
        conn.messages.push({ type: 'unparsable', data: d.toString().slice(0, 200) });
      }
      for (const w of conn.waiters) w();
    });
    ws.on('close', (code, reason) => {
      conn.closed = { code, reason: reason.toString() };
      for (const w of conn.waiters) w();
    });
    ws.on('error', (err) => resolve({ failed: err.message }));
    ws.on('open', () => resolve(conn));
  });
}

/** Waits until `pred` holds on the connection, the connection closes, or the deadline. */
function waitFor(conn: Conn, pred: () => boolean, deadlineMs: number): Promise<'ok' | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    const check = () => {
      if (pred()) done('ok');
      else if (conn.closed) done('closed');
    };
    const timer = setTimeout(() => done('timeout'), deadlineMs);
    const done = (r: 'ok' | 'closed' | 'timeout') => {
      clearTimeout(timer);
      conn.waiters.delete(check);
      resolve(r);
    };
    conn.waiters.add(check);
    check();
  });
}

function actionMessage(prng: Prng, action: string): { frame: string; what: string } {
  const fields = ACTIONS[action]?.fields ?? {};
  const schema: Schema = { type: 'object', properties: fields as Schema };
  const base = plausible(schema, prng) as Record<string, unknown>;
  if (action === 'start') {
    base.transcription_languages = prng.chance(0.7) ? ['en-US'] : badValue(prng);
    base.audio_format = prng.chance(0.7) ? 'pcm' : badValue(prng);
  }
  const m = prng.chance(0.85) ? mutate(base, prng) : { value: base, what: 'plausible' };
  const data = m.value && typeof m.value === 'object' && !Array.isArray(m.value) ? { ...m.value, action } : m.value;
  return { frame: toJson({ type: 'voice-translation', data }), what: `${action}: ${m.what}` };
}

/** One field of an action (its own, or one the handlers read) replaced by a structure that breaks recursive code. */
function structuralMessage(prng: Prng, action: string): { frame: string; what: string } {
  const own = Object.keys(ACTIONS[action]?.fields ?? {});
  const field = prng.pick(own.length ? own : ['x']);
  const value = structural(prng);
  const data = { ...(plausible({ type: 'object', properties: ACTIONS[action]?.fields ?? {} }, prng) as object), action, [field]: value };
  return { frame: toJson({ type: 'voice-translation', data }), what: `${action}: ${field} = ${brief(value.slice(5), 40)}` };
}

function junkMessage(prng: Prng): { frame: string | Buffer; what: string } {
  return prng.pick<() => { frame: string | Buffer; what: string }>([
    () => ({ frame: 'not json', what: 'text not JSON' }),
    () => ({ frame: '', what: 'empty text' }),
    () => ({ frame: toJson(badValue(prng)), what: 'JSON not an object' }),
    () => ({ frame: toJson({ type: badValue(prng), data: {} }), what: 'bad type' }),
    () => ({ frame: toJson({ type: 'voice-translation', data: badValue(prng) }), what: 'bad data' }),
    () => ({ frame: toJson({ type: 'voice-translation', data: { action: badValue(prng) } }), what: 'bad action' }),
    () => ({ frame: toJson({ type: 'health', data: badValue(prng) }), what: 'health with bad data' }),
    () => ({
      frame: toJson({ type: 'voice-translation', data: { action: 'audio', audio: badValue(prng) } }),
      what: 'audio bad base64',
    }),
    () => ({
      frame: JSON.stringify({ type: 'voice-translation', data: { action: hugeString(prng).slice(0, 5000) } }),
      what: 'huge action',
    }),
    () => ({ frame: prng.bytes(prng.pick([1, 3, 1001, 32_000])), what: 'binary noise' }),
    () => ({ frame: Buffer.alloc(prng.pick([2, 3200, 64_000])), what: 'binary silence' }),
    () => ({ frame: Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), prng.bytes(500)]), what: 'fake webm' }),
    () => ({ frame: '{"type":"voice-translation","data":{"action":"start"', what: 'truncated JSON' }),
    () => ({ frame: `{"type":"voice-translation","data":${'['.repeat(5000)}${']'.repeat(5000)}}`, what: 'deep nesting' }),
    () => ({ frame: toJson({ type: 'health', data: { x: structural(prng) } }), what: 'health with a deep field' }),
    () => ({ frame: toJson({ type: structural(prng), data: {} }), what: 'type is a structure' }),
  ])();
}

export interface WsRun {
  url: string;
  ticket: () => Promise<string>;
  prng: Prng;
  cases: number;
  deadlineMs: number;
  alive: () => boolean;
  onFinding: (f: Omit<Finding, 'seed'>) => void;
}

/** Runs `cases` frames over as many connections as it takes; returns the frames sent and the answers by kind. */
export async function fuzzWebSocket(run: WsRun): Promise<{ sent: number; answers: Record<string, number> }> {
  const answers: Record<string, number> = {};
  const count = (k: string) => {
    answers[k] = (answers[k] ?? 0) + 1;
  };
  const { prng, deadlineMs } = run;
  const actions = [...KNOWN].sort();
  let sent = 0;
  while (sent < run.cases && run.alive()) {
    let ticket: string;
    try {
      ticket = await run.ticket();
    } catch (err) {
      // A server that died on the last frame refuses the ticket request before its exit is seen: the crash is reported by the harness.
      await new Promise((r) => setTimeout(r, 1000));
      if (!run.alive()) break;
      throw err;
    }
    const opened = await open(run.url, ticket, deadlineMs);
    if ('failed' in opened) {
      run.onFinding({ kind: 'hang', where: 'ws connect', what: 'handshake', detail: opened.failed, index: sent });
      continue;
    }
    const conn = opened;
    // A third of the connections start a real recording first, so actions run inside a session.
    if (prng.chance(0.35)) {
      conn.ws.send(
        JSON.stringify({ type: 'voice-translation', data: { action: 'start', transcription_languages: ['en-US'], audio_format: 'pcm' } }),
      );
      await waitFor(conn, () => conn.messages.some((m) => m.data?.action === 'session_started' || m.type === 'error'), deadlineMs * 2);
      const first = conn.messages.find((m) => m.data?.action === 'session_started' || m.type === 'error');
      count(`prelude start: ${first?.type === 'error' ? first.data?.error_code : (first?.data?.action ?? 'no answer')}`);
    }
    const perConnection = prng.int(5, 25);
    for (let i = 0; i < perConnection && sent < run.cases && !conn.closed; i++, sent++) {
      const roll = prng.next();
      const useAction = roll < 0.75;
      // Structural values go to config (glossary fields) half the time: its parser walks what it gets.
      const action = roll >= 0.6 && roll < 0.75 && prng.chance(0.5) ? 'config' : prng.pick(actions);
      const m = roll < 0.6 ? actionMessage(prng, action) : useAction ? structuralMessage(prng, action) : junkMessage(prng);
      const from = conn.messages.length;
      conn.ws.send(m.frame);
      const pongs = () => conn.messages.slice(from).some((x) => x.type === 'health' && x.data?.action === 'pong');
      conn.ws.send(JSON.stringify({ type: 'health', data: {} }));
      const r = await waitFor(conn, pongs, deadlineMs);
      const where = useAction ? `ws ${action}` : 'ws frame';
      const what = `${m.what} (${brief(typeof m.frame === 'string' ? m.frame : `<${m.frame.length} bytes>`, 120)})`;
      for (const x of conn.messages.slice(from))
        if (!(x.type === 'health')) count(x.type === 'error' ? `error ${x.data?.error_code}` : String(x.data?.action));
      if (r === 'closed' && conn.closed) count(`close ${(conn.closed as { code: number }).code}`);
      for (const e of conn.messages.slice(from).filter((x) => x.type === 'error' && x.data?.error_code === 'internal_error')) {
        // The spec answers an unknown message type or action with internal_error: only a known one is a fault.
        const d = e.data?.details ?? {};
        const unknownAction = typeof d.action === 'string' && !KNOWN.has(d.action);
        const unknownType = d.action === undefined && !['health', 'voice-translation'].includes(d.message_type);
        const known = !unknownAction && !unknownType;
        if (known) run.onFinding({ kind: 'internal_error', where, what, detail: JSON.stringify(e.data).slice(0, 400), index: sent });
      }
      if (r === 'timeout') run.onFinding({ kind: 'hang', where, what, detail: `no pong within ${deadlineMs} ms`, index: sent });
      const closed = conn.closed as Conn['closed'];
      if (r === 'closed' && closed && [1006, 1011].includes(closed.code)) {
        run.onFinding({ kind: 'ws_close', where, what, detail: `closed ${closed.code} ${closed.reason}`, index: sent });
      }
      if (!run.alive()) break;
    }
    if (!conn.closed) {
      conn.ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'stop' } }));
      await waitFor(
        conn,
        () => conn.messages.some((m) => m.data?.action === 'task_complete' || m.data?.error_code === 'session_not_started'),
        2000,
      );
      conn.ws.close(1000);
      await waitFor(conn, () => false, 1000);
    }
  }
  return { sent, answers };
}
