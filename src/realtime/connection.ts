/**
 * One WebSocket connection after the ticket was accepted: message parsing, rate limits,
 * keep-alive and the session state machine. Errors on a single message are reported as
 * `{type: 'error'}` and the connection stays open (spec "WebSocket events").
 */
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { type RealtimeLimits, TokenBucket } from './limits.js';
import type { RealtimePorts } from './ports.js';
import { CLOSE, type ClientMessage, errorMessage, eventMessage, healthMessage, parseClientMessage } from './protocol.js';
import { Recording } from './recording.js';
import { validateStart } from './start.js';
import { type ControlAction, type SessionState, transition } from './state.js';

const CONTROL: ReadonlySet<string> = new Set(['pause', 'resume', 'stop', 'audio']);

export class Connection {
  state: SessionState = { kind: 'connected' };
  private readonly messages: TokenBucket;
  private readonly audio: TokenBucket;
  private violations = 0;
  private alive = true;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly ws: WebSocket,
    readonly principal: Principal,
    private readonly ip: string,
    private readonly ports: RealtimePorts,
    private readonly limits: RealtimeLimits,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {
    this.messages = new TokenBucket(limits.messagesPerSecond, limits.messageBurst);
    this.audio = new TokenBucket(limits.audioBytesPerSecond, limits.audioBurstBytes);
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => {
      this.dispose();
      // A client that vanished mid-recording: what was recorded is finalized, not lost.
      if (this.recording && (this.state.kind === 'started' || this.state.kind === 'paused')) {
        this.state = { ...this.state, kind: 'stopping' };
        this.finishing = this.finish();
      }
    });
    const ping = setInterval(() => {
      if (!this.alive) {
        this.close(CLOSE.timeout, 'keep-alive timeout');
        return;
      }
      this.alive = false;
      ws.ping();
    }, limits.pingIntervalMs);
    const deadline = setTimeout(() => {
      if (this.state.kind === 'connected') this.close(CLOSE.timeout, 'no start before the deadline');
    }, limits.preStartMs);
    this.timers.push(ping, deadline);
  }

  send(text: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(text);
  }

  sendError(err: AppError): void {
    this.send(errorMessage(err, this.now()));
  }

  close(code: number, reason: string): void {
    this.dispose();
    this.ws.close(code, reason);
  }

  private finishing: Promise<void> | null = null;

  /** Shutdown: tell the client, close, and finalize a running recording (resolves when stored). */
  async shutdown(): Promise<void> {
    this.sendError(new AppError('service_shutdown', { variant: 'websocket' }));
    if (this.recording && (this.state.kind === 'started' || this.state.kind === 'paused')) {
      this.state = { ...this.state, kind: 'stopping' };
      this.finishing = this.finish();
    }
    this.close(CLOSE.goingAway, 'service shutdown');
    await this.finishing;
  }

  private dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
  }

  private violation(err: AppError): void {
    this.sendError(err);
    if (++this.violations >= this.limits.maxViolations) this.close(CLOSE.rateLimited, 'rate limit exceeded');
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (!this.messages.take()) {
      this.violation(
        new AppError('invalid_data', {
          variant: 'websocket',
          message: 'Too many messages; slow down.',
          details: { reason: 'message_rate', limit_per_second: this.limits.messagesPerSecond },
        }),
      );
      return;
    }
    if (isBinary) {
      this.onAudio(data, 'binary');
      return;
    }
    const parsed = parseClientMessage(data.toString('utf8'));
    if (!parsed.ok) {
      this.sendError(parsed.error);
      return;
    }
    this.violations = 0;
    this.onClientMessage(parsed.message);
  }

  private onClientMessage(m: ClientMessage): void {
    if (m.type === 'health') {
      // Application-level keep-alive for clients that cannot see ws pings (browsers).
      this.send(healthMessage({ action: 'pong', state: this.state.kind, timestamp: this.now().toISOString() }));
      return;
    }
    if (m.action === 'start') {
      void this.start(m.data).catch((err) => this.failStart(err));
      return;
    }
    if (CONTROL.has(m.action)) {
      if (m.action === 'audio') {
        this.onAudio(m.data.audio, 'json');
        return;
      }
      this.control(m.action as ControlAction);
      return;
    }
    this.sendError(
      new AppError('internal_error', {
        variant: 'websocket',
        message: `Unknown or unsupported action "${m.action}".`,
        details: { message_type: 'voice-translation', action: m.action },
      }),
    );
  }

  private starting = false;
  private recording: Recording | null = null;

  /**
   * start: validation, then the key's checks again, then plan and credit. Any refusal is
   * an error message; the connection stays open for another start.
   */
  private async start(data: Record<string, unknown>): Promise<void> {
    if (this.state.kind !== 'connected' || this.starting) {
      this.sendError(
        new AppError('invalid_data', {
          variant: 'websocket',
          message: 'A recording is already running or finishing on this connection.',
          details: { message_type: 'voice-translation', action: 'start', state: this.state.kind },
        }),
      );
      return;
    }
    this.starting = true;
    try {
      const checked = validateStart(data, this.ports.engines);
      if (!checked.ok) {
        this.sendError(checked.error);
        return;
      }
      for (const w of checked.warnings) this.sendError(w);
      await this.ports.checkKey(this.principal, this.ip);
      await this.ports.admit(this.principal, checked.start);
      const rec = new Recording(
        {
          ...this.ports.recording,
          emit: (action, payload) => this.send(eventMessage(action, payload)),
          error: (err) => this.sendError(err),
        },
        this.principal,
        checked.start,
      );
      rec.onQuotaExceeded = () => {
        if (this.state.kind === 'started' || this.state.kind === 'paused') {
          this.state = { ...this.state, kind: 'stopping' };
          this.finishing = this.finish();
        }
      };
      try {
        await rec.begin();
      } catch (err) {
        await rec.abandon();
        throw err;
      }
      this.recording = rec;
      this.state = { kind: 'started', sessionId: rec.sessionId, taskId: rec.taskId };
      this.send(
        eventMessage('session_started', {
          session_id: rec.sessionId,
          task_id: rec.taskId,
          recording_type: checked.start.type,
          recognition_mode: 'single',
          message: 'Recording started.',
        }),
      );
    } finally {
      this.starting = false;
    }
  }

  private failStart(err: unknown): void {
    if (err instanceof AppError) {
      this.sendError(new AppError(err.code, { variant: 'websocket', message: err.message, details: err.details ?? undefined }));
      return;
    }
    this.logger.error({ err }, 'start failed');
    this.sendError(
      new AppError('internal_error', { variant: 'websocket', details: { message_type: 'voice-translation', action: 'start' } }),
    );
  }

  private control(action: ControlAction): void {
    const next = transition(this.state, action);
    if (next instanceof AppError) {
      this.sendError(next);
      return;
    }
    this.state = next;
    this.send(eventMessage('status', { status: next.kind }));
    if (next.kind === 'stopping') this.finishing = this.finish();
  }

  /** stop: finalize, then `status: ended` and `task_complete`; the connection may start again. */
  private async finish(): Promise<void> {
    const rec = this.recording;
    if (!rec) return;
    this.recording = null;
    const outcome = await rec.finish();
    this.state = { kind: 'connected' };
    this.send(eventMessage('status', { status: 'ended', task_id: rec.taskId }));
    this.send(eventMessage('task_complete', { task_id: rec.taskId, status: outcome, duration_ms: rec.durationMs }));
  }

  private onAudio(payload: unknown, via: 'binary' | 'json'): void {
    const next = transition(this.state, 'audio');
    if (next instanceof AppError) {
      this.sendError(
        new AppError('invalid_data', {
          variant: 'websocket',
          message: 'Audio before start is not accepted.',
          details: { message_type: via === 'binary' ? 'binary' : 'voice-translation', action: 'audio' },
        }),
      );
      return;
    }
    const bytes = Buffer.isBuffer(payload) ? payload : typeof payload === 'string' ? Buffer.from(payload, 'base64') : null;
    if (!bytes) {
      this.sendError(
        new AppError('invalid_data', { variant: 'websocket', message: '`data.audio` must be base64 PCM.', details: { field: 'audio' } }),
      );
      return;
    }
    if (!this.audio.take(bytes.length)) {
      this.violation(
        new AppError('invalid_data', {
          variant: 'websocket',
          message: 'Audio is arriving faster than 4x real time; the excess was dropped.',
          details: { reason: 'audio_rate', limit_bytes_per_second: this.limits.audioBytesPerSecond },
        }),
      );
      return;
    }
    if (this.state.kind === 'started') this.recording?.write(bytes);
  }
}
