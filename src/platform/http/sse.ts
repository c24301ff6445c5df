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
import { type Frame, Outbox, type OutboxPolicy, type OutboxStats, SUBSCRIBER_POLICY } from '../../stream/outbox.js';
import { ResponseTransport } from '../../stream/transports.js';

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

export function openSse(request: FastifyRequest, reply: FastifyReply, options: SseOptions = {}): SseStream {
  // Fastify's public route to a raw response: from here the handler writes it. Fastify still
  // runs the onResponse hooks (log line, request metrics) when the response finishes, as it
  // documents for hijacked replies: a stream is answered (and counted) when it ends.
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
  flattenHeaderText(res);
  if (!options.headersWithFirstFrame) res.flushHeaders?.();
  const stream = new ResponseStream(res, options.policy ?? SUBSCRIBER_POLICY, request.server);
  if (options.heartbeatMs) stream.beat(options.heartbeatMs);
  request.raw.on('close', stream.gone);
  res.on('close', stream.gone);
  const observer = request.server.sseObserver;
  if (observer) {
    stream.observed = { observer, route: request.routeOptions.url ?? '(unmatched)', openedAt: performance.now() };
    observer.opened(stream.observed.route, request.method, options.status ?? 200);
  }
  request.server.sseStreams?.add(stream);
  return stream;
}

/**
 * node:http keeps a response's header text (`_header`, set by writeHead) for the life of the
 * response, built by concatenation: a V8 rope of ~37 small strings, ~1.2 KB on the heap. A
 * broadcast node holds tens of thousands of open responses; converting the rope to a number
 * makes V8 flatten it in place (one ~0.4 KB string; the text is unchanged), as pino's flatstr does.
 */
function flattenHeaderText(res: ServerResponse): void {
  const text = (res as unknown as { _header?: unknown })._header;
  if (typeof text === 'string') void Number(text);
}

/**
 * One open stream. A class, not closures: a broadcast node holds tens of thousands of these,
 * and methods on the prototype cost nothing per stream (two functions of its own remain: the
 * close listener and the slow-consumer cut).
 */
class ResponseStream implements SseStream {
  /** The connection is gone (or cut): nothing more is written. */
  private finished = false;
  /** close() was called: nothing more is accepted; what waits is still written (up to CLOSE_FLUSH_MS). */
  private closing = false;
  private resolveDone!: () => void;
  readonly done = new Promise<void>((r) => {
    this.resolveDone = r;
  });
  private readonly transport: ResponseTransport;
  private readonly outbox: Outbox<Frame>;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Metrics of streams (sseObserver), when the server has them. */
  observed: { observer: SseStreamObserver; route: string; openedAt: number } | null = null;
  /** The request's and the response's 'close' listener. */
  readonly gone = () => this.finish();

  constructor(
    private readonly res: ServerResponse,
    policy: OutboxPolicy,
    private readonly server: { sseStreams?: Set<SseStream> },
  ) {
    this.transport = new ResponseTransport(res);
    // Too slow for the policy: nothing more can be written in order, so the connection is cut.
    this.outbox = new Outbox<Frame>(this.transport, policy, () => this.cut());
  }

  beat(ms: number): void {
    this.heartbeat = setInterval(() => this.comment('heartbeat'), ms);
    this.heartbeat.unref();
  }

  send(event: string, data: unknown, id?: string | number, opts?: { interim?: boolean }): boolean {
    if (this.finished || this.closing) return false;
    return this.outbox.offer(frameOf(event, data, id), opts?.interim ?? false) && !this.outbox.congested;
  }

  sendEncoded(frames: Uint8Array, opts?: { interim?: boolean }): boolean {
    if (this.finished || this.closing) return false;
    return this.outbox.offer(frames, opts?.interim ?? false) && !this.outbox.congested;
  }

  comment(text: string): void {
    // A heartbeat only matters on an idle connection; a busy or blocked one skips it.
    if (!this.finished && !this.closing && !this.outbox.congested) this.outbox.offer(`: ${text.replace(/\n/g, ' ')}\n\n`);
  }

  async drained(): Promise<void> {
    while (!this.finished && this.outbox.congested) await new Promise<void>((r) => this.transport.onDrain(r));
  }

  close(): void {
    if (this.finished || this.closing) return;
    this.closing = true;
    if (!this.outbox.congested) {
      this.res.end();
      this.finish();
      return;
    }
    // The frames already accepted (e.g. the final event) still go out; a client that does not
    // read them in time is cut off.
    const cut = setTimeout(() => this.cut(), CLOSE_FLUSH_MS);
    cut.unref();
    void this.drained().then(() => {
      clearTimeout(cut);
      if (!this.finished) this.res.end();
      this.finish();
    });
  }

  get closed(): boolean {
    return this.finished || this.closing;
  }

  get stats(): OutboxStats {
    return this.outbox.stats;
  }

  private cut(): void {
    this.res.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.outbox.close();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.server.sseStreams?.delete(this);
    const o = this.observed;
    if (o) o.observer.closed(o.route, (performance.now() - o.openedAt) / 1000);
    this.resolveDone();
  }
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
