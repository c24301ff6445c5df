/** WebSocket test client: connects with a ticket subprotocol and collects messages in order. */
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { type EngineFactory, EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { realKey } from '../billing/support.js';
import { api, type Backend, startTestApp, type TestApp, type TestAppOptions } from '../support/app.js';
import { JFK as SHARED_JFK } from '../support/audio.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read messages freely
export type Msg = { type: string; data: any };

export interface Client {
  ws: WebSocket;
  protocol: string;
  messages: Msg[];
  next(pred?: (m: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
  closed: Promise<{ code: number; reason: string }>;
  send(obj: unknown): void;
}

export async function ticketAndKey(t: TestApp, keyInput: Parameters<typeof realKey>[1] = {}) {
  const k = await realKey(t, keyInput);
  await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
  const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
  if (r.status !== 200) throw new Error(`ticket: ${r.status} ${JSON.stringify(r.body)}`);
  return { ticket: r.body.data.ticket as string, keyId: k.keyId, accountId: k.accountId, key: k.key };
}

export async function ticketFor(t: TestApp): Promise<string> {
  return (await ticketAndKey(t)).ticket;
}

export function connect(t: TestApp, protocols: string[]): Promise<Client> {
  const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, protocols);
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  let seen = 0;
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as Msg;
    messages.push(m);
    for (const w of [...waiters]) {
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
        return;
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        protocol: ws.protocol,
        messages,
        closed,
        send: (obj) => ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj)),
        next(pred = () => true, timeoutMs = 3000) {
          // Messages already received and not yet consumed count first.
          for (; seen < messages.length; ) {
            const m = messages[seen++]!;
            if (pred(m)) return Promise.resolve(m);
          }
          return new Promise((res, rej) => {
            const timer = setTimeout(() => {
              // Say what did arrive: a timeout alone does not tell a slow server from a wrong event.
              const last = messages.slice(-6).map((m) => JSON.stringify(m.data ?? m).slice(0, 200));
              rej(new Error(`no matching message within ${timeoutMs} ms; the last ones: ${last.join(' | ')}`));
            }, timeoutMs);
            waiters.push({
              pred,
              resolve: (m) => {
                seen = messages.length;
                clearTimeout(timer);
                res(m);
              },
            });
          });
        },
      }),
    );
  });
}

/** Real built-in engines for live sessions: PocketSphinx (English streaming), Apertium pairs, the extractive summarizer. */
export async function liveEngines(extra: EngineFactory[] = []): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const out: AnyEngine[] = [];
  for (const f of [pocketsphinxStreamingFactory, apertiumFactory, extractiveSummarizerFactory, ...extra]) {
    const e = await f.create(ctx as never);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(e as AnyEngine);
  }
  return EngineRegistry.fromEngines(out);
}

export const JFK = SHARED_JFK;

/** jfk.flac as 16 kHz s16le mono PCM (ffmpeg). */
export function jfkPcm(): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], { maxBuffer: 64 << 20 });
}

export const vt = (action: string, data: Record<string, unknown> = {}) => ({ type: 'voice-translation', data: { action, ...data } });

/** Sends `start` and returns the session_started event (throws on an error instead). */
export async function startSession(cl: Client, data: Record<string, unknown>): Promise<Msg> {
  cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...data }));
  // Warnings and refusals of audio sent before this start are not answers to it.
  const answer = (x: Msg) =>
    x.data?.action === 'session_started' || (x.type === 'error' && x.data.severity !== 'warning' && x.data.details?.action !== 'audio');
  const m = await cl.next(answer, 15_000);
  if (m.type === 'error') throw new Error(`start refused: ${JSON.stringify(m.data)}`);
  return m;
}

/** Streams PCM as base64 `audio` actions in 100 ms chunks, `speed` times real time. */
export async function streamPcm(cl: Client, pcm: Buffer, speed = 1, onChunk?: (offsetMs: number) => void | Promise<void>) {
  const chunk = 3200;
  for (let i = 0; i < pcm.length; i += chunk) {
    cl.send(vt('audio', { audio: pcm.subarray(i, i + chunk).toString('base64') }));
    await onChunk?.(i / 32);
    await new Promise((r) => setTimeout(r, 100 / speed));
  }
}

/** The first error message with `code` (waits for it). */
export function errorWith(cl: Client, code: string, timeoutMs = 5000): Promise<Msg> {
  return cl.next((m) => m.type === 'error' && m.data.error_code === code, timeoutMs);
}

/** The next voice-translation event named `action`. */
export function event(cl: Client, action: string, timeoutMs = 5000): Promise<Msg> {
  return cl.next((m) => m.type === 'voice-translation' && m.data.action === action, timeoutMs);
}

/**
 * The app for live-session suites: real engines; on PostgreSQL also Redis (bus and rate
 * limits) when REDIS_URL is set, so the scale-out wiring (force-end over the bus) is exercised.
 */
export async function startLiveApp(backend: Backend, options: Omit<TestAppOptions, 'backend'> = {}): Promise<TestApp> {
  const redis: Record<string, string> = backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
  return startTestApp({ engines: await liveEngines(), ...options, backend, env: { ...redis, ...options.env } });
}

/** Polls the received messages until `pred` holds over them (for conditions spanning several messages). */
export async function waitFor(cl: Client, pred: (messages: Msg[]) => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pred(cl.messages)) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
