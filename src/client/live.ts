/**
 * The live WebSocket session: a ticket over REST, the socket on {realtime_url}/ws with the
 * `ticket.<TICKET>` subprotocol, `start`, audio (binary frames), typed events and actions,
 * stop, and resume on a new connection with the `resume_token` of `session_started`.
 * Browser-safe: any WebSocket constructor with the standard interface (globalThis.WebSocket in
 * browsers and Node 22+, the `ws` package in Node 20; node.ts passes it for you).
 *
 * Events the client does not know are passed through (`onAny`, `events()`), never thrown.
 */
import type { LiveActions, LiveEvents } from './api-types.js';
import { ParleyError } from './errors.js';
import type { UnknownEventName } from './sse.js';

/** The part of the standard WebSocket interface the session uses. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  binaryType: string;
  send(data: string | ArrayBufferLike | ArrayBufferView | Blob): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: browser and ws event objects differ; both have the fields read here
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** One server event: `action` names it; unknown actions keep their data. */
export type LiveEvent =
  | { [A in keyof LiveEvents & string]: { action: A; data: LiveEvents[A] } }[keyof LiveEvents & string]
  | { action: UnknownEventName; data: Record<string, unknown> };

export type StartOptions = LiveActions['start'];
type ActionName = keyof LiveActions & string;

/** What LiveApi needs from the client (the ticket and the hosts). */
interface TicketSource {
  ticket(): Promise<{ ticket: string; expires_in: number }>;
  readonly transport: { realtimeUrl: string };
}

export class LiveApi {
  constructor(
    private readonly client: TicketSource,
    private readonly WebSocketImpl?: WebSocketConstructor,
  ) {}

  /** {realtime_url}/ws with ws: or wss:. */
  get url(): string {
    return `${this.client.transport.realtimeUrl.replace(/^http/, 'ws')}/ws`;
  }

  /** A ticket, then an open connection (no recording yet: call `start`). */
  async connect(): Promise<LiveSession> {
    const Impl = this.WebSocketImpl ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) throw new Error('no WebSocket: pass options.WebSocket (in Node 20 use src/client/node.ts)');
    const { ticket } = await this.client.ticket();
    const ws = new Impl(this.url, [`ticket.${ticket}`]);
    ws.binaryType = 'arraybuffer';
    const session = new LiveSession(ws);
    await session.opened;
    return session;
  }

  /** Connects and starts a recording; resolves on `session_started` (a refusal throws its ParleyError). */
  async start(options: StartOptions, onEvent?: (e: LiveEvent) => void): Promise<LiveSession> {
    const session = await this.connect();
    if (onEvent) session.onAny(onEvent);
    try {
      await session.start(options);
    } catch (err) {
      session.close();
      throw err;
    }
    return session;
  }

  /** A new connection that takes over a dropped recording (`resume_token` of its session_started). */
  async resume(resumeToken: string, onEvent?: (e: LiveEvent) => void): Promise<LiveSession> {
    return this.start({ resume_token: resumeToken }, onEvent);
  }
}

export class LiveSession {
  /** Resolves when the socket is open (rejects if it could not open). */
  readonly opened: Promise<void>;
  /** Resolves when the socket has closed, with its close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The session_started (or resume_ok) payload of the current recording. */
  started: LiveEvents['session_started'] | null = null;
  private readonly listeners = new Set<(e: LiveEvent) => void>();
  private readonly errorListeners = new Set<(e: ParleyError) => void>();
  private isClosed = false;

  constructor(readonly ws: WebSocketLike) {
    this.opened = new Promise((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', (e) =>
        reject(new ParleyError({ code: 'network_error', message: `WebSocket: ${e?.message ?? 'error'}` })),
      );
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) =>
      ws.addEventListener('close', (e) => {
        this.isClosed = true;
        resolve({ code: e?.code ?? 1006, reason: String(e?.reason ?? '') });
      }),
    );
    ws.addEventListener('message', (e) => this.dispatch(e.data));
  }

  get taskId(): string | undefined {
    return this.started?.task_id;
  }
  get sessionId(): string | undefined {
    return this.started?.session_id;
  }
  /** Lets a new connection resume this recording (see LiveApi.resume). */
  get resumeToken(): string | undefined {
    return this.started?.resume_token;
  }

  private dispatch(raw: unknown): void {
    if (typeof raw !== 'string') return; // the server sends JSON text only
    let m: { type?: string; data?: Record<string, unknown> };
    try {
      m = JSON.parse(raw);
    } catch {
      return;
    }
    if (m.type === 'error') {
      const err = ParleyError.fromObject(m.data ?? {});
      for (const l of this.errorListeners) l(err);
      return;
    }
    if (m.type !== 'voice-translation' || !m.data || typeof m.data.action !== 'string') return;
    const event = { action: m.data.action, data: m.data } as LiveEvent;
    if (event.action === 'session_started') this.started = event.data;
    for (const l of this.listeners) l(event);
  }

  /** Every event (known or not). Returns an unsubscribe function. */
  onAny(listener: (e: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One event by name, typed. Returns an unsubscribe function. */
  on<A extends keyof LiveEvents & string>(action: A, listener: (data: LiveEvents[A]) => void): () => void {
    return this.onAny((e) => {
      if (e.action === action) listener(e.data as LiveEvents[A]);
    });
  }

  /** Error messages (`{type: "error"}`): sentence-level ones carry `sid`; fatal without sid ends the recording. */
  onError(listener: (err: ParleyError) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /**
   * The next event named `action` (matching `where`); an error without sid that arrives first
   * rejects with it (pass `failOnError: false` to wait through errors; warnings only with
   * `failOnWarning`, for actions whose refusal is a warning). Rejects if the socket closes.
   */
  waitFor<A extends keyof LiveEvents & string>(
    action: A,
    where: (data: LiveEvents[A]) => boolean = () => true,
    options: { failOnError?: boolean; failOnWarning?: boolean; timeoutMs?: number } = {},
  ): Promise<LiveEvents[A]> {
    return new Promise((resolve, reject) => {
      const cleanup: (() => void)[] = [];
      const done = () => {
        for (const c of cleanup) c();
      };
      cleanup.push(
        this.on(action, (d) => {
          if (!where(d)) return;
          done();
          resolve(d);
        }),
      );
      if (options.failOnError !== false) {
        cleanup.push(
          this.onError((err) => {
            if (err.sid !== undefined || (err.severity === 'warning' && !options.failOnWarning)) return;
            done();
            reject(err);
          }),
        );
      }
      if (options.timeoutMs) {
        const t = setTimeout(() => {
          done();
          reject(new ParleyError({ code: 'timeout', message: `no ${action} within ${options.timeoutMs} ms` }));
        }, options.timeoutMs);
        cleanup.push(() => clearTimeout(t));
      }
      void this.closed.then(({ code, reason }) => {
        done();
        reject(new ParleyError({ code: 'connection_closed', message: `closed (${code} ${reason}) before ${action}` }));
      });
    });
  }

  /** Async iteration over events until the socket closes. */
  async *events(): AsyncGenerator<LiveEvent> {
    const queue: LiveEvent[] = [];
    let wake: (() => void) | null = null;
    const off = this.onAny((e) => {
      queue.push(e);
      wake?.();
    });
    void this.closed.then(() => wake?.());
    try {
      for (;;) {
        while (queue.length) yield queue.shift() as LiveEvent;
        if (this.isClosed) return;
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = null;
      }
    } finally {
      off();
    }
  }

  /** Sends an action with its fields. */
  send<A extends ActionName>(action: A, fields?: LiveActions[A]): void {
    this.ws.send(JSON.stringify({ type: 'voice-translation', data: { action, ...(fields ?? {}) } }));
  }

  /** Starts a recording on this connection; resolves with session_started (or resume_ok for a resume). */
  async start(options: StartOptions): Promise<LiveEvents['session_started']> {
    const resuming = Boolean(options.resume_token);
    const wait = resuming ? Promise.race([this.waitFor('resume_ok'), this.waitFor('session_started')]) : this.waitFor('session_started');
    this.send('start', options);
    const started = (await wait) as LiveEvents['session_started'];
    this.started = { ...(this.started ?? {}), ...started };
    return this.started;
  }

  /** One chunk of audio as a binary frame (PCM 16 kHz mono s16le, or WebM chunks, per audio_format). */
  sendAudio(chunk: ArrayBufferLike | ArrayBufferView | Blob): void {
    this.ws.send(chunk);
  }

  /**
   * Sends a whole audio source. With `bytesPerSecond` (32000 for 16 kHz PCM) it goes at that
   * pace times `speed`, like a microphone; without, as fast as the socket drains.
   */
  async streamAudio(
    source: AsyncIterable<Uint8Array | ArrayBuffer> | Iterable<Uint8Array | ArrayBuffer>,
    options: { bytesPerSecond?: number; speed?: number; signal?: AbortSignal } = {},
  ): Promise<void> {
    for await (const chunk of source) {
      if (options.signal?.aborted || this.isClosed) return;
      this.sendAudio(chunk);
      const bytes = chunk instanceof ArrayBuffer ? chunk.byteLength : chunk.byteLength;
      const ms = options.bytesPerSecond ? ((bytes / options.bytesPerSecond) * 1000) / (options.speed ?? 1) : 0;
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      while (this.ws.bufferedAmount > 1 << 20 && !this.isClosed) await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Pauses; rejects with session_already_paused (a warning) when it already is. */
  pause(): Promise<LiveEvents['status']> {
    const w = this.waitFor('status', (s) => s.status === 'paused', { failOnWarning: true });
    this.send('pause');
    return w;
  }

  /** Resumes a paused recording; rejects with session_not_paused (a warning) when it is not paused. */
  resume(): Promise<LiveEvents['status']> {
    const w = this.waitFor('status', (s) => s.status !== 'paused', { failOnWarning: true });
    this.send('resume');
    return w;
  }

  /** Corrects a final sentence (extension, docs/corrections.md); resolves with its sentence_corrected. */
  correct(sid: number, text: string, revision?: number): Promise<LiveEvents['sentence_corrected']> {
    const w = this.waitFor('sentence_corrected', (e) => e.sid === sid);
    this.send('correct_sentence', { sid, text, ...(revision === undefined ? {} : { revision }) });
    return w;
  }

  /** Undoes the latest correction of a sentence; resolves with its sentence_corrected (kind undo). */
  undoCorrection(sid: number, revision?: number): Promise<LiveEvents['sentence_corrected']> {
    const w = this.waitFor('sentence_corrected', (e) => e.sid === sid);
    this.send('undo_correction', { sid, ...(revision === undefined ? {} : { revision }) });
    return w;
  }

  /** Stops the recording and resolves once it has ended (status `ended`: finals and processing done). */
  async stop(): Promise<{ taskId: string | undefined }> {
    const ended = this.waitFor('status', (s) => s.status === 'ended', { failOnError: false });
    this.send('stop');
    await ended;
    return { taskId: this.taskId };
  }

  close(code = 1000, reason = ''): void {
    if (!this.isClosed) this.ws.close(code, reason);
  }
}
