/**
 * Server-sent events over a hijacked Fastify reply. Headers set before (CORS, request id)
 * are copied, since hijacking bypasses Fastify's own header writing. Errors found before the
 * stream opens are ordinary JSON error responses; after that they are `error` events.
 *
 * Every frame goes through an Outbox (src/stream/outbox.ts): written while the response
 * accepts it, queued while `write()` pushes back, interims superseded, and past the policy's
 * limit the client is cut off. `streamToSse` turns a bus subscription into such a stream.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Outbox, type OutboxPolicy, type OutboxStats, SUBSCRIBER_POLICY } from '../../stream/outbox.js';
import { responseTransport } from '../../stream/transports.js';

/** The spec's SSE heartbeat: a comment line every 15 seconds. */
export const SSE_HEARTBEAT_MS = 15_000;
/** How long close() lets a client read the frames still waiting before the connection is cut. */
const CLOSE_FLUSH_MS = 5_000;

export interface SseStream {
  /**
   * Sends an event (an `interim` one may be superseded while the client is slow). False when
   * the client is not keeping up (the frame waits; await `drained()` before producing more)
   * or the stream is closed.
   */
  send(event: string, data: unknown, id?: string | number, options?: { interim?: boolean }): boolean;
  /**
   * Writes frames encoded once for many streams (`encodeSseFrame`), through the same outbox
   * (backpressure, interims superseded, the slow-consumer cut). Same answer as send().
   */
  sendEncoded(frames: Uint8Array, options?: { interim?: boolean }): boolean;
  comment(text: string): void;
  /** Resolves once nothing waits for the client (or the stream closed). */
  drained(): Promise<void>;
  close(): void;
  readonly closed: boolean;
  /** The outbox's counters (written, dropped, queued, maxQueued, closed by 'overflow'). */
  readonly stats: OutboxStats;
  /** Resolves when the client goes away, close() is called or the slow-consumer policy cut it off. */
  readonly done: Promise<void>;
}

/**
 * Told when streams open and close (metrics: src/metrics/http.ts decorates the app with it),
 * since a stream takes over its response and never reaches the onResponse hooks.
 */
export interface SseStreamObserver {
  opened(route: string, method: string, status: number): void;
  closed(route: string, seconds: number): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    sseObserver?: SseStreamObserver;
    /**
     * The server's open streams, so a graceful close can end them (they would hold close()
     * forever). Decorated by `createHttpServer` (server.ts) on the root instance, which its
     * plugins share; a server without it does not track its streams.
     */
    sseStreams?: Set<SseStream>;
  }
}

export function closeAllSse(server: { sseStreams?: Set<SseStream> }): void {
  for (const s of server.sseStreams ?? []) s.close();
}

export interface SseOptions {
  heartbeatMs?: number;
  /**
   * Settle the request as the stream opens: Fastify's onResponse hooks (request log line,
   * request metrics) run now, with the stream's status, instead of when it ends, so the
   * framework's request and reply objects are not kept alive for hours by a long stream
   * (broadcast viewers: thousands of them). The stream's own duration is still observed.
   */
  settleRequest?: boolean;
  /**
   * The caller writes its first frames at once, so the headers go with them in one write
   * instead of a write of their own (thousands of viewers arriving: one syscall each, not two).
   */
  headersWithFirstFrame?: boolean;
  status?: number;
  policy?: OutboxPolicy;
}

/** A payload serialized once and sent to many streams as is (see `sharedJson`). */
export class SseJson {
  constructor(readonly text: string) {}
}

const shared = new WeakMap<object, SseJson>();

/**
 * The JSON of a payload that many streams send unchanged (a broadcast's captions and audio to
 * each of its viewers): serialized on first use and reused for as long as the object lives,
 * so N viewers cost one JSON.stringify, not N. The object must not change afterwards.
 */
export function sharedJson(data: object): SseJson {
  let json = shared.get(data);
  if (!json) {
    json = new SseJson(JSON.stringify(data));
    shared.set(data, json);
  }
  return json;
}

function frameOf(event: string, data: unknown, id?: string | number): string {
  let frame = '';
  if (id !== undefined) frame += `id: ${id}\n`;
  frame += `event: ${event}\n`;
  const json = data instanceof SseJson ? data.text : JSON.stringify(data);
  for (const line of json.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** One SSE frame as bytes, to write unchanged to every stream that gets it (broadcast viewers). */
export function encodeSseFrame(event: string, data: unknown, id?: string | number): Buffer {
  return Buffer.from(frameOf(event, data, id));
}

/** Fastify's finish listener (reply.js `onResFinished`): it runs the onResponse hooks and holds the reply until it does. */
const FASTIFY_FINISH = 'onResFinished';

function settleNow(res: ServerResponse): void {
  for (const listener of res.listeners('finish')) {
    if (typeof listener !== 'function' || listener.name !== FASTIFY_FINISH) continue;
    // It removes itself (from 'finish' and 'error') and runs the hooks.
    (listener as (err?: Error) => void).call(res);
  }
}

export function openSse(request: FastifyRequest, reply: FastifyReply, options: SseOptions = {}): SseStream {
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v as string | number | string[];
  res.writeHead(options.status ?? 200, {
    ...headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'X-Request-Id': request.id,
  });
  if (!options.headersWithFirstFrame) res.flushHeaders?.();
  if (options.settleRequest) settleNow(res);
  let closed = false;
  /** close() was called: nothing more is accepted; what waits is still written (up to CLOSE_FLUSH_MS). */
  let closing = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  const transport = responseTransport(res);
  // Too slow for the policy: nothing more can be written in order, so the connection is cut.
  const outbox = new Outbox(transport, options.policy ?? SUBSCRIBER_POLICY, () => {
    res.destroy();
    finish();
  });
  const heartbeat = options.heartbeatMs ? setInterval(() => stream.comment('heartbeat'), options.heartbeatMs) : undefined;
  heartbeat?.unref();
  const finish = () => {
    if (closed) return;
    closed = true;
    outbox.close();
    if (heartbeat) clearInterval(heartbeat);
    resolveDone();
  };
  request.raw.on('close', finish);
  res.on('close', finish);
  const open = request.server.sseStreams;
  if (open) void done.then(() => open.delete(stream));
  const observer = request.server.sseObserver;
  if (observer) {
    const route = request.routeOptions.url ?? '(unmatched)';
    const openedAt = performance.now();
    observer.opened(route, request.method, options.status ?? 200);
    void done.then(() => observer.closed(route, (performance.now() - openedAt) / 1000));
  }

  const stream: SseStream = {
    send(event, data, id, opts) {
      if (closed || closing) return false;
      return outbox.offer(frameOf(event, data, id), opts?.interim ?? false) && !outbox.congested;
    },
    sendEncoded(frames, opts) {
      if (closed || closing) return false;
      return outbox.offer(frames, opts?.interim ?? false) && !outbox.congested;
    },
    comment(text) {
      // A heartbeat only matters on an idle connection; a busy or blocked one skips it.
      if (!closed && !closing && !outbox.congested) outbox.offer(`: ${text.replace(/\n/g, ' ')}\n\n`);
    },
    async drained() {
      while (!closed && outbox.congested) await new Promise<void>((r) => transport.onDrain(r));
    },
    close() {
      if (closed || closing) return;
      closing = true;
      if (!outbox.congested) {
        res.end();
        finish();
        return;
      }
      // The frames already accepted (e.g. the final event) still go out; a client that does not
      // read them in time is cut off.
      const cut = setTimeout(() => {
        res.destroy();
        finish();
      }, CLOSE_FLUSH_MS);
      cut.unref();
      void stream.drained().then(() => {
        clearTimeout(cut);
        if (!closed) res.end();
        finish();
      });
    },
    get closed() {
      return closed || closing;
    },
    get stats() {
      return outbox.stats;
    },
    done,
  };
  open?.add(stream);
  return stream;
}

/** What `streamToSse` sends for one item of a source. */
export interface SseFrame {
  event: string;
  data: unknown;
  id?: string | number;
  /** May be superseded by a later interim while the client is slow. */
  interim?: boolean;
  /** The stream ends after this frame. */
  end?: boolean;
}

export interface SseSource<T> {
  /** Subscribes; resolves once the subscription is live, to its unsubscribe function. */
  subscribe(push: (item: T) => void): Promise<() => void>;
  /**
   * Read once after the subscription is live (so nothing falls between the two): the items
   * that describe the state now. Throwing here answers with an ordinary JSON error (the
   * stream is not open yet).
   */
  initial?(): Promise<T[]>;
  /** The frame for an item; null skips it (e.g. progress that would go backwards). */
  frame(item: T): SseFrame | null;
  /**
   * At every heartbeat: items to send, if any (e.g. the record re-read, so a message the
   * at-most-once bus lost cannot leave the stream hanging), and whether the source is over.
   */
  onHeartbeat?(): Promise<T[]>;
}

/**
 * Turns a subscription into an SSE stream: subscribe (live), read the initial state, open the
 * stream, send the initial items, then every item pushed; heartbeat every `heartbeatMs`
 * (default 15 s), backpressure and the slow-consumer policy from openSse, closed at shutdown
 * and after a frame marked `end`. The subscription ends with the stream.
 */
export async function streamToSse<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  source: SseSource<T>,
  options: Omit<SseOptions, 'heartbeatMs'> & { heartbeatMs?: number; onOpen?: (sse: SseStream) => void } = {},
): Promise<SseStream> {
  let sse: SseStream | null = null;
  const early: T[] = [];
  const emit = (item: T) => {
    const s = sse;
    if (!s || s.closed) return;
    const f = source.frame(item);
    if (!f) return;
    s.send(f.event, f.data, f.id, { interim: f.interim });
    if (f.end) s.close();
  };
  const unsubscribe = await source.subscribe((item) => {
    if (sse) emit(item);
    else early.push(item);
  });
  let initial: T[];
  try {
    initial = (await source.initial?.()) ?? [];
  } catch (err) {
    unsubscribe();
    throw err;
  }
  const heartbeatMs = options.heartbeatMs ?? SSE_HEARTBEAT_MS;
  const opened = openSse(request, reply, { ...options, heartbeatMs: source.onHeartbeat ? undefined : heartbeatMs });
  sse = opened;
  void opened.done.then(unsubscribe);
  options.onOpen?.(opened);
  if (source.onHeartbeat) {
    const check = source.onHeartbeat;
    let checking = false;
    const timer = setInterval(() => {
      opened.comment('heartbeat');
      if (checking) return;
      checking = true;
      void check()
        .then((items) => {
          for (const i of items) emit(i);
        })
        .catch((err: unknown) => request.log.warn({ err }, 'sse heartbeat check failed'))
        .finally(() => {
          checking = false;
        });
    }, heartbeatMs);
    timer.unref();
    void opened.done.then(() => clearInterval(timer));
  }
  for (const i of initial) emit(i);
  for (const i of early.splice(0)) emit(i);
  return opened;
}
