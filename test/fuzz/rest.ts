/**
 * REST half of the fuzzer: every operation of the served OpenAPI document, called with
 * generated bad input over a raw TCP socket (so malformed requests, wrong lengths and
 * truncated bodies reach the server as sent). An answer is the status line; a 5xx, no answer
 * within the deadline while the connection stays open (a hang), or a connection closed
 * without an answer to a well-formed request are findings.
 */
import { connect } from 'node:net';
import { wavHeader } from '../../src/realtime/wav.js';
import type { Prng } from './prng.js';
import { badValue, brief, hugeString, mutate, plausible, type Schema, structural, TRICKY_STRINGS, toJson } from './values.js';

export interface Operation {
  method: string;
  path: string;
  params: Schema[];
  json?: Schema;
  multipart?: Schema;
  security: boolean;
}

export interface RawRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /** Content-Length sent larger than the body, then the client half-closes. */
  truncated?: boolean;
  /** The request line or headers are deliberately malformed. */
  malformed?: boolean;
}

/** Bytes of the request line, headers and body: past Node's 16 KB header limit or a large body the server may answer and reset before the client has read the answer. */
export function requestSize(req: RawRequest): number {
  return req.target.length + req.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) + (req.body?.length ?? 0);
}

export interface Outcome {
  status?: number;
  head?: string;
  kind: 'answered' | 'closed' | 'hang' | 'error';
  error?: string;
  ms: number;
}

export interface Finding {
  kind: '5xx' | 'hang' | 'closed' | 'crash' | 'internal_error' | 'ws_close';
  where: string;
  what: string;
  detail: string;
  seed: number;
  index: number;
}

/** Every operation of an OpenAPI 3 document. */
export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        json: content['application/json']?.schema,
        multipart: content['multipart/form-data']?.schema,
        security: (op.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

export interface Resources {
  key: string;
  /** Path parameter name -> real values (tasks, broadcasts, tokens, templates, voices...). */
  values: Record<string, string[]>;
}

/** Percent-encodes UTF-8 bytes (lone surrogates too, which encodeURIComponent refuses). */
const enc = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');

function pathValue(name: string, prng: Prng, res: Resources): { value: string; what: string } {
  const real = res.values[name];
  const roll = prng.next();
  if (real?.length && roll < 0.6) return { value: enc(prng.pick(real)), what: `${name}=real` };
  const trick = prng.weighted<() => string>([
    [4, () => enc(prng.pick(TRICKY_STRINGS) || 'x')],
    [2, () => prng.pick(['..', '.', '..%2f..%2fetc%2fpasswd', '%2e%2e', '%00', '%', '%zz', '%c0%ae', '%ff%fe', '%uD800'])],
    [1, () => enc(hugeString(prng).slice(0, prng.pick([101, 2001, 5000])))],
    [1, () => `${enc(prng.pick(real ?? ['x']))}${prng.pick(['%20', '.json', '/', '%0a', ';x=1', '#frag', '?'])}`],
    [
      1,
      () => prng.pick(['00000000-0000-4000-8000-000000000000', 'ZZZZZZZZ-0000-4000-8000-000000000000', '0', '-1', '1e9', '9'.repeat(40)]),
    ],
  ]);
  const value = trick();
  return { value, what: `${name}=${brief(decodeSafe(value), 60)}` };
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function queryFor(op: Operation, prng: Prng, res: Resources): { qs: string; what: string[] } {
  const parts: string[] = [];
  const what: string[] = [];
  for (const p of op.params.filter((x) => x.in === 'query')) {
    const roll = prng.next();
    if (roll < 0.2) continue;
    if (p.name === 'api_key') {
      if (prng.chance(0.3)) parts.push(`api_key=${enc(prng.pick([res.key, '', 'svc_x', hugeString(prng).slice(0, 3000)]))}`);
      continue;
    }
    const values = roll < 0.6 ? [plausible(p.schema, prng, {}, p.name)] : [badValue(prng)];
    const list = Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
    if (roll >= 0.6) what.push(`?${p.name}=${brief(values[0], 40)}`);
    for (const v of list.slice(0, 300))
      parts.push(`${enc(p.name)}=${enc(typeof v === 'string' && !v.startsWith('\u0000') ? v : toJson(v))}`);
    if (prng.chance(0.1)) parts.push(`${enc(p.name)}=${enc(String(badValue(prng)).slice(0, 1000))}`);
  }
  if (prng.chance(0.1)) {
    parts.push(prng.pick(['x=1', '__proto__[a]=1', 'constructor=1', '%=1', 'a=%zz', '&&&', '=', 'a[b][c]=1']));
    what.push('extra query');
  }
  if (prng.chance(0.05)) {
    // Query shapes that nest or repeat without bound in parsers that build objects from brackets.
    const shape = prng.pick<() => [string, string]>([
      () => [`${'a'}${'[b]'.repeat(prng.pick([100, 1000]))}=1`, 'deeply bracketed key'],
      () => ['x[]=1&'.repeat(prng.pick([500, 2000])).slice(0, -1), 'one key repeated'],
      () => [`__proto__[polluted]=1&constructor[prototype][polluted]=1`, 'prototype keys'],
      () => [`q=${enc(prng.pick(['\u200b', '\u202e', '\ud800', '\u0000', '😀']).repeat(prng.pick([10, 1000])))}`, 'unicode value'],
      () => [`n=${prng.pick(['1e400', '-0', '9007199254740993', `1${'0'.repeat(400)}`, 'NaN', 'Infinity'])}`, 'edge number'],
    ])();
    parts.push(shape[0]);
    what.push(`query ${shape[1]}`);
  }
  return { qs: parts.length ? `?${parts.join('&')}` : '', what };
}

const OTHER_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/json;;;',
  '',
  '*/*',
];

function jsonBody(
  op: Operation,
  prng: Prng,
  hints: Record<string, unknown>,
): { body: Buffer; type: string; what: string; truncated?: boolean } {
  const base = plausible(op.json, prng, hints);
  const kind = prng.weighted<string>([
    [10, 'mutated'],
    [5, 'structural'],
    [2, 'plausible'],
    [2, 'invalid-json'],
    [2, 'content-type'],
    [1, 'truncated'],
  ]);
  if (kind === 'plausible') return { body: Buffer.from(toJson(base)), type: 'application/json', what: 'plausible body' };
  if (kind === 'structural') {
    // A field (or the whole body) replaced by deep nesting, a huge array, prototype keys or an edge number.
    const fields = base && typeof base === 'object' && !Array.isArray(base) ? Object.keys(base) : [];
    const field = fields.length && prng.chance(0.8) ? prng.pick(fields) : null;
    const value = structural(prng);
    const body = field ? toJson({ ...(base as object), [field]: value }) : toJson(value);
    return { body: Buffer.from(body), type: 'application/json', what: `${field ?? 'body'} = ${brief(value.slice(5), 40)}` };
  }
  if (kind === 'invalid-json') {
    const text = toJson(base);
    const bad = prng.pick([
      () => text.slice(0, Math.max(1, Math.floor(text.length / 2))),
      () => `\ufeff${text}`,
      () => `${text}garbage`,
      () => text.replace(/"/g, "'"),
      () => '',
      () => 'null',
      () => '[1,2',
      () => '{"a":1,"a":2}',
      () => '{"__proto__":{"polluted":true}}',
      () => '9'.repeat(400),
      () => prng.bytes(prng.int(1, 200)).toString('latin1'),
    ])();
    return { body: Buffer.from(bad, 'latin1'), type: 'application/json', what: `invalid json ${brief(bad, 40)}` };
  }
  if (kind === 'content-type') {
    const type = prng.pick(OTHER_TYPES);
    return { body: Buffer.from(toJson(base)), type, what: `content-type ${type || '(none)'}` };
  }
  const m = mutate(base, prng);
  const body = Buffer.from(toJson(m.value));
  if (kind === 'truncated') return { body, type: 'application/json', what: `truncated body (${m.what})`, truncated: true };
  return { body, type: 'application/json', what: m.what };
}

/** A short real WAV: 16 kHz mono s16le, silence or noise. */
export function wav(ms: number, prng: Prng, noise: boolean): Buffer {
  const samples = Math.floor((16000 * ms) / 1000);
  const b = Buffer.concat([wavHeader(samples * 2), Buffer.alloc(samples * 2)]);
  if (noise) for (let i = 0; i < samples; i++) b.writeInt16LE(prng.int(-3000, 3000), 44 + i * 2);
  return b;
}

function multipartBody(
  op: Operation,
  prng: Prng,
  hints: Record<string, unknown>,
): { body: Buffer; type: string; what: string; truncated?: boolean } {
  const boundary = `fuzz${prng.int(0, 1e9)}`;
  const fields = plausible(op.multipart, prng, hints) as Record<string, unknown>;
  // The form carries JSON text in some fields.
  fields.transcription_languages = prng.chance(0.7) ? '["en-US"]' : badValue(prng);
  if (prng.chance(0.4)) fields.translation_languages = prng.chance(0.5) ? '["es"]' : badValue(prng);
  // Glossary fields are JSON text in the form: deep nesting there reaches the glossary parser as a string.
  for (const k of ['terminology', 'fuzzy_correction', 'translation_dict'])
    if (k in fields || prng.chance(0.1)) fields[k] = toJson(prng.chance(0.4) ? structural(prng) : badValue(prng));
  const m = prng.chance(0.7) ? mutate(fields, prng) : { value: fields, what: 'plausible fields' };
  const parts: Buffer[] = [];
  const fileKind = prng.pick(['wav-silence', 'wav-noise', 'random', 'empty', 'header-only', 'none', 'twice', 'lying-header']);
  const addFile = (data: Buffer, name: string) =>
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${prng.pick(['audio/wav', 'application/octet-stream', 'text/plain'])}\r\n\r\n`,
      ),
      data,
      Buffer.from('\r\n'),
    );
  const fileFirst = prng.chance(0.5);
  const addFields = () => {
    const entries = m.value && typeof m.value === 'object' && !Array.isArray(m.value) ? Object.entries(m.value) : [['x', m.value]];
    for (const [k, v] of entries) {
      if (k === 'file') continue;
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${String(k).replace(/"/g, '')}"\r\n\r\n${typeof v === 'string' && !v.startsWith('\u0000') ? v : toJson(v)}\r\n`,
        ),
      );
    }
  };
  if (!fileFirst) addFields();
  const name = prng.pick(['a.wav', 'a.mp3', '../../x.wav', '😀.m4a', '', 'a'.repeat(500)]);
  if (fileKind === 'wav-silence') addFile(wav(prng.pick([50, 600]), prng, false), name);
  else if (fileKind === 'wav-noise') addFile(wav(400, prng, true), name);
  else if (fileKind === 'random') addFile(prng.bytes(prng.int(1, 5000)), name);
  else if (fileKind === 'empty') addFile(Buffer.alloc(0), name);
  else if (fileKind === 'header-only') addFile(wav(0, prng, false).subarray(0, prng.int(4, 44)), name);
  else if (fileKind === 'lying-header') {
    const w = wav(100, prng, false);
    w.writeUInt32LE(0xfffffff0, 40);
    w.writeUInt16LE(prng.pick([0, 3, 99]), 22);
    addFile(w, name);
  } else if (fileKind === 'twice') {
    addFile(wav(50, prng, false), name);
    addFile(wav(50, prng, false), name);
  }
  if (fileFirst) addFields();
  const broken = prng.chance(0.15);
  if (!broken) parts.push(Buffer.from(`--${boundary}--\r\n`));
  const type = prng.chance(0.1)
    ? prng.pick(['multipart/form-data', 'multipart/form-data; boundary=', 'application/json'])
    : `multipart/form-data; boundary=${boundary}`;
  return {
    body: Buffer.concat(parts),
    type,
    what: `multipart file=${fileKind}${broken ? ' no closing boundary' : ''}, ${m.what}`,
    truncated: prng.chance(0.1),
  };
}

/** One generated request for an operation. */
export function restCase(op: Operation, prng: Prng, res: Resources): { req: RawRequest; what: string } {
  const what: string[] = [];
  const hints: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(res.values)) if (v.length) hints[k] = prng.pick(v);
  hints.uuid = hints.taskId;
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const v = pathValue(p.name, prng, res);
    if (!v.what.endsWith('=real')) what.push(v.what);
    path = path.replace(`{${p.name}}`, v.value);
  }
  const q = queryFor(op, prng, res);
  what.push(...q.what);
  const headers: [string, string][] = [];
  let malformed = false;
  // Authentication: mostly the real key, so input reaches the handlers.
  const auth = prng.weighted<string | null>([
    [16, res.key],
    [1, null],
    [1, 'svc_x'],
    [1, `${res.key.slice(0, -1)}!`],
    [1, 'svc_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456'],
  ]);
  if (auth !== res.key) what.push(`key=${auth === null ? 'none' : brief(auth, 20)}`);
  if (auth !== null) headers.push(['X-API-Key', auth]);
  if (prng.chance(0.12)) {
    const h = prng.pick<() => [string, string]>([
      () => ['X-Request-Id', prng.pick(['', 'a'.repeat(200), '../x', 'é'])],
      () => ['Range', prng.pick(['bytes=abc', 'bytes=-0', 'bytes=99999999999-', 'bytes=5-1', 'bytes=0-0,1-1,2-2', 'bytes=', 'items=0-1'])],
      () => ['Accept', prng.pick(['text/event-stream', 'application/xml', '*/*;q=0', ''])],
      () => ['Origin', prng.pick(['http://evil.example', 'null', ''])],
      () => ['X-Forwarded-For', prng.pick(['1.2.3.4, 5.6.7.8', 'garbage', '::1', '999.999.999.999'])],
      () => ['Last-Event-ID', prng.pick(['-1', 'abc', '99999999999999999999', ''])],
      () => ['X-Big', 'b'.repeat(prng.pick([2000, 2000, 2000, 40_000]))],
    ])();
    headers.push(h);
    what.push(`header ${h[0]}: ${brief(h[1], 30)}`);
  }
  if (prng.chance(0.03)) {
    // Header bytes outside latin1 / control characters: Node's parser answers these.
    headers.push(['X-Weird', prng.pick(['a\u0000b', 'ü😀', 'x\ry'])]);
    malformed = true;
    what.push('malformed header');
  }
  let body: Buffer | undefined;
  let truncated = false;
  if (op.json || (op.method !== 'GET' && prng.chance(0.15))) {
    const b = op.json
      ? jsonBody(op, prng, hints)
      : { body: Buffer.from(toJson(badValue(prng))), type: 'application/json', what: 'unexpected body' };
    body = b.body;
    if (b.type) headers.push(['Content-Type', b.type]);
    truncated = Boolean(b.truncated);
    what.push(b.what);
  } else if (op.multipart) {
    const b = multipartBody(op, prng, hints);
    body = b.body;
    headers.push(['Content-Type', b.type]);
    truncated = Boolean(b.truncated);
    what.push(b.what);
  }
  return { req: { method: op.method, target: path + q.qs, headers, body, truncated, malformed }, what: what.join('; ') || 'plausible' };
}

/**
 * Sends one request over a fresh connection and waits for the status line (or the close),
 * at most `deadlineMs`. 5xx bodies are read (up to 1 s) for the report.
 */
export function send(host: string, port: number, req: RawRequest, deadlineMs: number): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let got = Buffer.alloc(0);
    let settled = false;
    let status: number | undefined;
    const finish = (o: Omit<Outcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...o, ms: Math.round(performance.now() - started) });
    };
    const timer = setTimeout(() => {
      if (status !== undefined) finish({ kind: 'answered', status, head: got.toString('latin1', 0, 2000) });
      else finish({ kind: 'hang' });
    }, deadlineMs);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const line = /^HTTP\/1\.[01] (\d{3})/.exec(got.toString('latin1', 0, 20));
      if (!line) return;
      status = Number(line[1]);
      if (status < 500) finish({ kind: 'answered', status, head: got.toString('latin1', 0, 600) });
      else if (got.length > 4000) finish({ kind: 'answered', status, head: got.toString('latin1', 0, 2000) });
      else setTimeout(() => finish({ kind: 'answered', status, head: got.toString('latin1', 0, 2000) }), 1000);
    });
    socket.on('close', () => {
      if (status !== undefined) finish({ kind: 'answered', status, head: got.toString('latin1', 0, 2000) });
      else finish({ kind: 'closed' });
    });
    socket.on('error', (err) => {
      if (status !== undefined) finish({ kind: 'answered', status, head: got.toString('latin1', 0, 2000) });
      else finish({ kind: 'error', error: (err as NodeJS.ErrnoException).code ?? err.message });
    });
    socket.on('connect', () => {
      const body = req.body ?? Buffer.alloc(0);
      const lines = [`${req.method} ${req.target} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close'];
      for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
      if (req.body !== undefined) lines.push(`Content-Length: ${req.truncated ? body.length + 100 : body.length}`);
      socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, req.malformed ? 'utf8' : 'latin1'), body]), () => {
        if (req.truncated) socket.end();
      });
    });
  });
}
