/**
 * Broadcast test helpers: the real app (real database, real keys, port 0) with a movable
 * clock, eSpeak NG as the synthesizer (its voices are the public view's tts_voices), and
 * request helpers for the host's and the viewers' endpoints.
 */
import { expect } from 'vitest';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { type Clock, clock, realKey } from '../billing/support.js';
import { api, type Backend, startTestApp, type TestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';

export { type Clock, clock, realKey };

export async function ttsEngines(): Promise<EngineRegistry> {
  const made = await espeakFactory.create({ config: { engines: { ffmpegPath: 'ffmpeg' } } } as never);
  if ('unavailable' in made) throw new Error(`eSpeak NG unavailable: ${made.unavailable}`);
  return EngineRegistry.fromEngines([made as AnyEngine]);
}

export async function startBroadcastApp(
  backend: Backend,
  c: Clock,
  env: Record<string, string> = {},
  extra: { pgSchema?: string; dataDir?: string } = {},
): Promise<TestApp> {
  return startTestApp({
    backend,
    now: c.now,
    engines: await ttsEngines(),
    env: { PARLEY_BROADCAST_VIEWER_LIMIT: '500', ...env },
    reuse: extra.dataDir ? { dataDir: extra.dataDir, pgSchema: extra.pgSchema } : undefined,
  });
}

export const VIEWER_LIMIT = 500;

/** POST /api/v1/broadcasts with the key; returns the response. */
export function createBroadcast(t: TestApp, key: string, body: unknown, headers: Record<string, string> = {}) {
  return api(t.url, 'POST', '/api/v1/broadcasts', { key, body, headers });
}

/** Creates a broadcast that must succeed and returns its creation result. */
export async function newBroadcast(t: TestApp, key: string, body: Record<string, unknown> = {}) {
  const r = await createBroadcast(t, key, { transcription_languages: ['en-US'], translation_languages: ['es', 'fr'], ...body });
  if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; token: string; share_url: string; status: string };
}

/**
 * Puts a broadcast on air in `phase` as a host's start does (store.beginHost: pending ->
 * active), for suites whose app has no recognizer to host with or that test the viewers' side
 * only: viewers are refused (404 not_started) until a broadcast is on air. The lease runs to
 * 2100, so no sweep freezes it; nothing is recorded or charged.
 */
export async function onAir(t: TestApp, id: string, phase: 'standby' | 'live' = 'standby'): Promise<void> {
  const store = new BroadcastStore(t.app.deps.database);
  const b = await store.get(id);
  if (!b) throw new Error(`no broadcast ${id}`);
  const began = await store.beginHost(id, {
    hostKeyId: b.keyId,
    phase,
    now: new Date(),
    session: `test-host-${id}`,
    leaseUntil: new Date('2100-01-01T00:00:00Z'),
  });
  if (began !== 'started') throw new Error(`broadcast ${id} not put on air: ${began}`);
}

/** A viewer request from `ip` (the app trusts X-Forwarded-For when PARLEY_TRUST_PROXY=1). */
export function viewer(
  t: TestApp,
  method: 'GET' | 'POST',
  path: string,
  opts: { ip?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers = { ...(opts.ip ? { 'x-forwarded-for': opts.ip } : {}), ...(opts.headers ?? {}) };
  return api(t.url, method, path, { body: opts.body, headers });
}

/** A random IPv4 address in 10.0.0.0/8 (each test its own sources, also on a shared Redis). */
export function randomIp(): string {
  const b = () => Math.floor(Math.random() * 254) + 1;
  return `10.${b()}.${b()}.${b()}`;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read error bodies freely
export function expectError(r: { status: number; body: any }, status: number, code: string, field?: string): void {
  const detail = JSON.stringify(r.body);
  if (r.status !== status || r.body?.data?.error_code !== code) throw new Error(`expected ${status} ${code}, got ${r.status} ${detail}`);
  if (field !== undefined && r.body.data.details?.field !== field) throw new Error(`expected details.field ${field}, got ${detail}`);
}

type R = Awaited<ReturnType<typeof viewer>>;

/** Runs `n` requests, `width` at a time, in order of index. */
export async function many(n: number, width: number, make: (i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < n; i += width)
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => make(i + j)))));
  return out;
}

export function expect429(r: R, reason: string): void {
  expectError(r, 429, 'too_many_requests');
  const retry = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retry)).toBe(true);
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(300);
  expect(r.body.data.details).toMatchObject({ retry_after: retry, reason });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
export type SseEvent = { event: string; data: any };

export interface ViewerClient {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read error bodies freely
  body: any;
  events: SseEvent[];
  comments: string[];
  next(pred: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server closed the stream. */
  ended: Promise<void>;
  close(): void;
}

/** A viewer's caption stream over real HTTP (fetch, read as it arrives). */
export async function openViewer(t: TestApp, token: string, query = '', headers: Record<string, string> = {}): Promise<ViewerClient> {
  const ctl = new AbortController();
  const res = await fetch(`${t.url}/broadcast/${token}/text${query}`, { signal: ctl.signal, headers });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: { pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  let seen = 0;
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : null,
      events,
      comments,
      next: () => Promise.reject(new Error('no stream')),
      ended: Promise.resolve(),
      close: () => {},
    };
  }
  const ended = (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          i = buf.indexOf('\n\n');
          if (block.startsWith(':')) {
            comments.push(block.slice(1).trim());
            continue;
          }
          const e = parseSseBlock(block);
          if (!e) continue;
          events.push(e);
          for (const w of [...waiters])
            if (w.pred(e)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(e);
            }
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    body: null,
    events,
    comments,
    ended,
    close: () => ctl.abort(),
    next(pred, timeoutMs = 10_000) {
      for (; seen < events.length; ) {
        const e = events[seen++]!;
        if (pred(e)) return Promise.resolve(e);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event; got ${events.map((e) => e.event).join(',')}`)), timeoutMs);
        waiters.push({
          pred,
          resolve: (e) => {
            seen = events.length;
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
  };
}
