/**
 * One WebSocket connection after the ticket was accepted: keep-alive, rate limits, the
 * outbox, message parsing, and each action handed to the session the socket is attached to
 * (session/session.ts). Errors on a single message are reported as `{type: 'error'}` and the
 * connection stays open (spec "WebSocket events"). A session outlives its socket: a client
 * that vanished is finalized after a grace period unless it resumes (session/registry.ts), and
 * shutdown drains running sessions before the database closes.
 */
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Principal } from '../platform/auth/types.js';
import { faultPoint } from '../platform/crash-points.js';
import { AppError } from '../platform/errors/app-error.js';
import { Outbox, SUBSCRIBER_POLICY } from '../stream/outbox.js';
import { webSocketTransport } from '../stream/transports.js';
import { decodeAudioPayload } from './audio-intake.js';
import { addChannelAction, removeChannelAction, setChannelLanguageAction } from './channel-actions.js';
import { channelError } from './channel-spec.js';
import { setSpeakerLanguageAction, startSpeakingAction, stopSpeakingAction, switchConversationModeAction } from './conversation-actions.js';
import { correctSentenceAction, undoCorrectionAction } from './correction-actions.js';
import { type RealtimeLimits, TokenBucket } from './limits.js';
import type { LiveFleet } from './live/fleet.js';
import type { RealtimePorts } from './ports.js';
import { CLOSE, type ClientMessage, errorMessage, healthMessage, parseClientMessage } from './protocol.js';
import type { ResumeDirectory } from './resume.js';
import { actionContext, conversationContext, ttsContext } from './session/contexts.js';
import { publicState } from './session/lifecycle.js';
import { openSession } from './session/opening.js';
import type { SessionRegistry } from './session/registry.js';
import { LiveSession } from './session/session.js';
import type { SessionSocket } from './session/socket.js';
import { configAction, retranslateAction, setNameAction, setSummaryAction, switchLanguageAction } from './session-actions.js';
import { speakerAction } from './speaker-actions.js';
import { setSpeakingSpeedAction, setTtsAction, ttsModeAction, ttsPlayAction, ttsStopAction } from './tts-actions.js';

const CONTROL: ReadonlySet<string> = new Set(['pause', 'resume', 'stop']);
type ControlAction = 'pause' | 'resume' | 'stop';
const ws = { variant: 'websocket' as const };

export interface ConnectionHost {
  /** True once graceful shutdown began: `start` is refused and the connection closed. */
  shuttingDown(): boolean;
  /** Resume tokens of this process (resume.ts); without it sessions cannot be resumed. */
  resume?: ResumeDirectory;
  /** The sessions of this process: a resume attaches this socket to one of them. */
  registry?: SessionRegistry;
  /** Recordings of other processes (src/realtime/live): a resume of one takes it over here. */
  fleet?: LiveFleet;
}

export class Connection {
  /** The session this socket is attached to (a resume attaches it to another one). */
  session: LiveSession;
  private readonly messages: TokenBucket;
  private readonly audio: TokenBucket;
  private violations = 0;
  private alive = true;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Closes a connection that waits for a start: the first one (4008), or another after task_complete (1000). */
  private idle: NodeJS.Timeout | null = null;
  /**
   * Everything this client is sent, in order: its own answers and errors, and the session's
   * events (this socket is one subscriber of the stream). Bounded: see src/stream/outbox.ts.
   */
  private readonly out: Outbox;
  /** What the session sees of this socket. */
  private readonly port: SessionSocket;

  constructor(
    private readonly ws: WebSocket,
    readonly principal: Principal,
    private readonly ip: string,
    private readonly ports: RealtimePorts,
    private readonly limits: RealtimeLimits,
    private readonly logger: Logger,
    private readonly now: () => Date,
    private readonly host: ConnectionHost = { shuttingDown: () => false },
  ) {
    this.messages = new TokenBucket(limits.messagesPerSecond, limits.messageBurst);
    this.audio = new TokenBucket(limits.audioBytesPerSecond, limits.audioBurstBytes);
    this.out = new Outbox(webSocketTransport(ws), SUBSCRIBER_POLICY, (stats) => {
      this.logger.warn({ queued: stats.maxQueued, dropped: stats.dropped }, 'client too slow: connection closed');
      this.close(CLOSE.tooSlow, 'client too slow');
    });
    this.port = this.socketPort();
    this.session = this.newSession();
    ws.on('message', (data, isBinary) => this.guarded(() => this.onMessage(data as Buffer, isBinary), isBinary ? 'binary' : null));
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => {
      try {
        this.onClose();
      } catch (err) {
        this.logger.error({ err }, 'connection close handling failed');
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
    this.timers.push(ping);
    this.closeIfIdle(CLOSE.timeout, 'no start before the deadline');
  }

  send(text: string, interim = false): void {
    if (this.ws.readyState === this.ws.OPEN) this.out.offer(text, interim);
  }

  sendError(err: AppError): void {
    this.send(errorMessage(err, this.now()));
  }

  close(code: number, reason: string): void {
    this.dispose();
    this.ws.close(code, reason);
  }

  /** Resolves when no recording of this connection's session is left to finalize. */
  settled(): Promise<void> {
    return this.session.settled();
  }

  /**
   * Graceful shutdown: `service_shutdown` to the client; a running recording goes on until the
   * client stops it or the drain deadline passes, then it is finalized and the connection
   * closes (1001); a connection without a recording closes after a short moment.
   */
  shutdown(): Promise<void> {
    return this.session.drain();
  }

  private newSession(): LiveSession {
    const { principal, ports, limits, logger } = this;
    return new LiveSession({ principal, ports, limits, logger, resume: this.host.resume }, this.port);
  }

  private socketPort(): SessionSocket {
    const ws = this.ws;
    return {
      send: (text, interim) => this.send(text, interim),
      sendError: (err) => this.sendError(err),
      close: (code, reason) => this.close(code, reason),
      get gone() {
        return ws.readyState === ws.CLOSED;
      },
      closeWhenIdle: () => this.closeIfIdle(CLOSE.normal, 'session complete'),
      stopIdleClose: () => this.stopIdleClose(),
      closedWithin: (ms) => Promise.race([sleep(ms), new Promise<void>((r) => ws.once('close', () => r()))]),
      released: () => {
        this.session = this.newSession();
      },
    };
  }

  private dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.stopIdleClose();
  }

  /**
   * A connection without a recording is closed after PARLEY_WS_PRESTART_SECONDS: before its
   * first start with 4008 (it never did what it connected for), after a recording ended with
   * 1000 (the session ended well; the wait is the client's chance to start another one on the
   * same connection, README "Close codes").
   */
  private closeIfIdle(code: number, reason: string): void {
    this.stopIdleClose();
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.session.idle) this.close(code, reason);
    }, this.limits.preStartMs);
  }

  private stopIdleClose(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  /**
   * Runs one message's handling so that nothing it throws leaves the connection: an
   * unexpected error is logged and answered with `internal_error` (spec: a single-message
   * failure does not close the connection or change the session). Rejections of the async
   * actions are caught where they are started (`failAction`); this is for what is thrown
   * synchronously, which would otherwise reach the process's uncaughtException.
   */
  private guarded(handle: () => void, messageType: 'binary' | 'voice-translation' | null, action?: string): void {
    try {
      handle();
    } catch (err) {
      this.logger.error({ err, message_type: messageType, action }, 'message handling failed');
      if (this.ws.readyState !== this.ws.OPEN) return;
      const details = { message_type: messageType, ...(action ? { action } : {}) };
      this.sendError(new AppError('internal_error', { ...ws, details }));
    }
  }

  /** The client vanished: its session waits for a resume (or ends) as its lifecycle says. */
  private onClose(): void {
    this.dispose();
    this.out.close();
    this.session.socketLost();
  }

  private violation(err: AppError): void {
    this.sendError(err);
    if (++this.violations >= this.limits.maxViolations) this.close(CLOSE.rateLimited, 'rate limit exceeded');
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (!this.messages.take()) {
      this.violation(
        new AppError('invalid_data', {
          ...ws,
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
      this.send(healthMessage({ action: 'pong', state: publicState(this.session.life), timestamp: this.now().toISOString() }));
      return;
    }
    const run = (p: Promise<void>) => void p.catch((err) => this.failAction(m.action, err));
    const s = this.session;
    const handlers: Record<string, (data: Record<string, unknown>) => void> = {
      start: (d) => run(this.start(d)),
      audio: (d) => this.onAudio(d.audio, 'json'),
      config: (d) => configAction(actionContext(s), d),
      set_name: (d) => run(setNameAction(actionContext(s), d)),
      set_summary: (d) => setSummaryAction(actionContext(s), d),
      retranslate: (d) => run(retranslateAction(actionContext(s), d)),
      start_speaking: (d) => run(startSpeakingAction(conversationContext(s), d)),
      stop_speaking: () => run(stopSpeakingAction(conversationContext(s))),
      switch_conversation_mode: (d) => switchConversationModeAction(conversationContext(s), d),
      set_speaker_language: (d) => run(setSpeakerLanguageAction(conversationContext(s), d)),
      tts_play: (d) => ttsPlayAction(ttsContext(s), d),
      tts_stop: () => ttsStopAction(ttsContext(s)),
      tts_mode: (d) => ttsModeAction(ttsContext(s), d),
      set_tts: (d) => run(setTtsAction(ttsContext(s), d)),
      set_speaking_speed: (d) => setSpeakingSpeedAction(ttsContext(s), d),
      switch_language: (d) =>
        s.recording?.channels
          ? this.sendError(channelError('multichannel_switch_language_not_allowed', 'Use set_channel_language in multi_channel sessions.'))
          : run(switchLanguageAction(actionContext(s), d)),
      add_channel: (d) => run(addChannelAction(actionContext(s), d)),
      remove_channel: (d) => run(removeChannelAction(actionContext(s), d)),
      set_channel_language: (d) => run(setChannelLanguageAction(actionContext(s), d)),
      rename_speaker: (d) => speakerAction(actionContext(s), 'rename', d),
      reassign_speaker: (d) => speakerAction(actionContext(s), 'reassign', d),
      merge_speakers: (d) => speakerAction(actionContext(s), 'merge', d),
      // Sentence corrections (correction-actions.ts).
      correct_sentence: (d) => run(correctSentenceAction(actionContext(s), d)),
      undo_correction: (d) => run(undoCorrectionAction(actionContext(s), d)),
      broadcast_go_live: () => run(s.broadcastAction('broadcast_go_live', 'phase_changed', (h) => h.goLive())),
      broadcast_announcement: (d) => run(s.broadcastAction('broadcast_announcement', 'announcement', (h) => h.announce(d))),
      set_standby_message: (d) => run(s.broadcastAction('set_standby_message', 'standby', (h) => h.setStandbyMessage(d))),
    };
    const handler = Object.hasOwn(handlers, m.action) ? handlers[m.action] : undefined;
    if (handler) {
      this.guarded(
        () => {
          faultPoint(`ws.action.${m.action}`);
          handler(m.data);
        },
        'voice-translation',
        m.action,
      );
      return;
    }
    if (CONTROL.has(m.action)) {
      this.guarded(() => s.drive({ kind: m.action as ControlAction }), 'voice-translation', m.action);
      return;
    }
    this.sendError(
      new AppError('internal_error', {
        ...ws,
        message: `Unknown or unsupported action "${m.action}".`,
        details: { message_type: 'voice-translation', action: m.action },
      }),
    );
  }

  /** start (or resume): refused during shutdown, which closes the connection; else the session opens (session/opening.ts). */
  private async start(sent: Record<string, unknown>): Promise<void> {
    if (this.host.shuttingDown()) {
      this.sendError(new AppError('service_shutdown', { ...ws, message: 'The service is shutting down; start refused.' }));
      this.close(CLOSE.goingAway, 'service shutdown');
      return;
    }
    const opened = await openSession(
      this.session,
      { checkKey: () => this.checkKeyAgain(), registry: this.host.registry, fleet: this.host.fleet },
      sent,
    );
    // A resume attached this socket to the session of the token.
    if (opened && opened !== this.session) this.session = opened;
  }

  /** The key is asked again (disabled, expired, IP rules) before a recording starts or resumes here. */
  private async checkKeyAgain(): Promise<void> {
    try {
      await this.ports.checkKey(this.principal, this.ip);
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.logger.error({ err }, 'key check failed at start');
      throw new AppError('auth_service_error', ws);
    }
  }

  private failAction(action: string, err: unknown): void {
    if (err instanceof AppError) {
      this.sendError(new AppError(err.code, { ...ws, message: err.message, details: err.details ?? undefined, sid: err.sid }));
      return;
    }
    this.logger.error({ err, action }, 'action failed');
    this.sendError(new AppError('internal_error', { ...ws, details: { message_type: 'voice-translation', action } }));
  }

  private onAudio(payload: unknown, via: 'binary' | 'json'): void {
    // No recording is running (not started yet, or it ended): session_not_started was sent.
    const accepted = this.session.audio(via);
    if (accepted === 'refused') return;
    const bytes = decodeAudioPayload(payload);
    if (bytes instanceof AppError) {
      this.sendError(bytes);
      return;
    }
    // multi_channel: the rate limit is per channel (one channel's worth of bytes per frame).
    if (!this.audio.take(bytes.length / (this.session.recording?.channels?.width || 1))) {
      this.violation(
        new AppError('invalid_data', {
          ...ws,
          message: 'Audio is arriving faster than 4x real time; the excess was dropped.',
          details: { reason: 'audio_rate', limit_bytes_per_second: this.limits.audioBytesPerSecond },
        }),
      );
      return;
    }
    // Paused: the audio is dropped (not recorded, not billed).
    if (accepted === 'record') this.session.write(bytes);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
