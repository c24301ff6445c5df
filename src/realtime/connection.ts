/**
 * One WebSocket connection after the ticket was accepted: message parsing, rate limits,
 * keep-alive, the session state machine and the session actions. Errors on a single message
 * are reported as `{type: 'error'}` and the connection stays open (spec "WebSocket events").
 * A recording outlives its connection: a client that vanished is finalized after a grace
 * period, and shutdown drains running recordings before the database closes.
 */
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { type BroadcastHost, prepareBroadcast } from '../broadcasts/host-session.js';
import type { Glossary } from '../glossary/index.js';
import type { Principal } from '../platform/auth/types.js';
import { faultPoint } from '../platform/crash-points.js';
import { AppError } from '../platform/errors/app-error.js';
import { isInterim, type SessionEvent, type SessionStatus } from '../stream/events.js';
import { Outbox, SUBSCRIBER_POLICY } from '../stream/outbox.js';
import { webSocketTransport } from '../stream/transports.js';
import { unknownTemplate } from './actions.js';
import { containerMismatch, decodeAudioPayload } from './audio-intake.js';
import { addChannelAction, removeChannelAction, setChannelLanguageAction } from './channel-actions.js';
import { channelError } from './channel-spec.js';
import {
  type ConversationContext,
  setSpeakerLanguageAction,
  startSpeakingAction,
  stopSpeakingAction,
  switchConversationModeAction,
} from './conversation-actions.js';
import { correctSentenceAction, undoCorrectionAction } from './correction-actions.js';
import type { FinishKind } from './finalize.js';
import { type RealtimeLimits, TokenBucket } from './limits.js';
import type { LiveFleet } from './live/fleet.js';
import type { OwnerState } from './live/snapshot.js';
import type { RealtimePorts } from './ports.js';
import { CLOSE, type ClientMessage, errorMessage, eventMessage, healthMessage, parseClientMessage } from './protocol.js';
import { Recording } from './recording.js';
import type { EndedReason, Resumable, ResumeDirectory } from './resume.js';
import {
  type ActionContext,
  configAction,
  retranslateAction,
  setNameAction,
  setSummaryAction,
  switchLanguageAction,
} from './session-actions.js';
import { SessionTts } from './session-tts.js';
import { SilenceWatch } from './silence.js';
import { speakerAction } from './speaker-actions.js';
import { validateStart } from './start.js';
import { type ControlAction, type SessionState, transition } from './state.js';
import { setSpeakingSpeedAction, setTtsAction, type TtsContext, ttsModeAction, ttsPlayAction, ttsStopAction } from './tts-actions.js';
import type { TtsSettings } from './tts-settings.js';

const CONTROL: ReadonlySet<string> = new Set(['pause', 'resume', 'stop']);
const ws = { variant: 'websocket' as const };

export interface ConnectionHost {
  /** True once graceful shutdown began: `start` is refused and the connection closed. */
  shuttingDown(): boolean;
  /** Resume tokens of this process (resume.ts); without it sessions cannot be resumed. */
  resume?: ResumeDirectory;
  /** Recordings of other processes (src/realtime/live): a resume of one takes it over here. */
  fleet?: LiveFleet;
}

/** Where the recording's own messages (errors, finalization events) go: re-pointed on resume. */
interface OwnerSink {
  error(err: AppError): void;
  emit(action: string, payload: Record<string, unknown>): void;
}

/** Session events kept while the client is away (finals, translations, statuses; interims are dropped). */
const GAP_MAX = 2000;

/** What a resuming connection takes over from the one that dropped. */
interface Handover {
  recording: Recording;
  state: SessionState;
  rawStart: Record<string, unknown>;
  glossary: Glossary | null;
  sink: OwnerSink;
  token: string;
  gap: SessionEvent[];
  speech: SessionTts | null;
}

export class Connection implements Resumable {
  state: SessionState = { kind: 'connected' };
  private readonly messages: TokenBucket;
  private readonly audio: TokenBucket;
  private violations = 0;
  private alive = true;
  private open = true;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Closes a connection that waits for a start: the first one (4008), or another after task_complete (1000). */
  private idle: NodeJS.Timeout | null = null;
  private starting = false;
  private recording: Recording | null = null;
  /** The start's fields as sent (set_summary re-validates against them). */
  private rawStart: Record<string, unknown> = {};
  /** The glossary sent with `config`: applies to the running recording and the following ones. */
  private glossary: Glossary | null = null;
  private silence: SilenceWatch | null = null;
  private finishing: Promise<void> | null = null;
  /** Resolves when the running recording has been finalized. */
  private recordingDone: Promise<void> = Promise.resolve();
  private markDone: () => void = () => {};
  private grace: NodeJS.Timeout | null = null;
  /** Shutdown: close once the recording is finalized. */
  private closeWhenIdle = false;
  /** The broadcast this connection hosts while its recording runs (src/broadcasts/host-session.ts). */
  private broadcast: BroadcastHost | null = null;
  /**
   * Everything this client is sent, in order: its own answers and errors, and the session's
   * events (this socket is one subscriber of the stream). Bounded: see src/stream/outbox.ts.
   */
  private readonly out: Outbox;
  /** Detaches this socket from the session stream. */
  private detach: () => void = () => {};
  /** The running recording's resume token (null for broadcasts and once it cannot be resumed). */
  private token: string | null = null;
  private sink: OwnerSink | null = null;
  /** While the client is away: the session events it missed, handed to the resuming connection. */
  private gap: SessionEvent[] | null = null;
  private gapOff: () => void = () => {};
  /** In-session TTS of the running recording (session-tts.ts), if set up. */
  private speech: SessionTts | null = null;

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

  /** The task of the running (or finishing) recording. */
  get taskId(): string | null {
    return this.recording?.taskId ?? null;
  }

  get resumeToken(): string | null {
    return this.token;
  }

  get owner(): Principal {
    return this.principal;
  }

  /** A recording still connected is taken over too (the client saw the drop first); see resume.ts. */
  resumeRefusal(): string | null {
    return this.running ? null : 'recording_ending';
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

  /** Resolves when no recording of this connection is left to finalize. */
  async settled(): Promise<void> {
    await this.recordingDone;
    await this.finishing;
  }

  private get running(): boolean {
    return this.recording !== null && (this.state.kind === 'started' || this.state.kind === 'paused');
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
      if (this.state.kind === 'connected' && !this.starting) this.close(code, reason);
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

  /** A client that vanished mid-recording: what was recorded is finalized after the grace period, not lost. */
  private onClose(): void {
    this.open = false;
    this.dispose();
    this.detach();
    this.out.close();
    if (!this.running) return;
    // Waiting to be resumed: the silence count stops (spec stt_silence_timeout).
    this.silence?.pause();
    // A broadcast waits for its host (frozen); its recording is finalized as any other.
    if (this.broadcast) this.background(this.broadcast.hostDropped(), 'broadcast freeze');
    const rec = this.recording as Recording;
    const gap: SessionEvent[] = [];
    this.gap = gap;
    this.gapOff = rec.events.attach((e) => {
      if (!isInterim(e) && gap.length < GAP_MAX) gap.push(e);
    });
    this.grace = setTimeout(() => this.endRecording('normal', 'grace_expired'), this.limits.disconnectGraceMs);
  }

  /**
   * Graceful shutdown: `service_shutdown` to the client; a running recording goes on until the
   * client stops it or the drain deadline passes, then it is finalized and the connection
   * closes (1001); a connection without a recording closes after a short moment.
   */
  async shutdown(): Promise<void> {
    this.sendError(new AppError('service_shutdown', ws));
    if (this.grace) {
      clearTimeout(this.grace);
      this.grace = null;
      this.endRecording('normal');
    }
    if (this.running || this.finishing) {
      this.closeWhenIdle = true;
      // A broadcast outlives this process: frozen now, its viewers wait for the host, who can
      // start it again on another node at once (a new recording there; this one ends with the drain).
      if (this.running && this.broadcast) await this.broadcast.hostDropped().catch((err) => this.logger.error({ err }, 'broadcast freeze'));
      await Promise.race([this.recordingDone, sleep(this.limits.drainMs)]);
      if (this.running) this.endRecording('normal');
      await this.settled();
      this.close(CLOSE.goingAway, 'service shutdown');
      return;
    }
    if (this.open) await Promise.race([sleep(this.limits.idleCloseMs), new Promise((r) => this.ws.once('close', r))]);
    this.close(CLOSE.goingAway, 'service shutdown');
  }

  /** POST /tasks/{id}/force-fail on this connection's live task: the client is told, recording stops. */
  forceEnd(): void {
    if (!this.recording || this.state.kind === 'connected') return;
    this.sendError(new AppError('session_force_ended', { ...ws, details: { task_id: this.recording.taskId } }));
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
    if (this.running) this.endRecording('forced');
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
      this.send(healthMessage({ action: 'pong', state: this.state.kind, timestamp: this.now().toISOString() }));
      return;
    }
    const run = (p: Promise<void>) => void p.catch((err) => this.failAction(m.action, err));
    const handlers: Record<string, (data: Record<string, unknown>) => void> = {
      start: (d) => run(this.start(d)),
      audio: (d) => this.onAudio(d.audio, 'json'),
      config: (d) => configAction(this.actionContext(), d),
      set_name: (d) => run(setNameAction(this.actionContext(), d)),
      set_summary: (d) => setSummaryAction(this.actionContext(), d),
      retranslate: (d) => run(retranslateAction(this.actionContext(), d)),
      start_speaking: (d) => run(startSpeakingAction(this.conversationContext(), d)),
      stop_speaking: () => run(stopSpeakingAction(this.conversationContext())),
      switch_conversation_mode: (d) => switchConversationModeAction(this.conversationContext(), d),
      set_speaker_language: (d) => run(setSpeakerLanguageAction(this.conversationContext(), d)),
      tts_play: (d) => ttsPlayAction(this.ttsContext(), d),
      tts_stop: () => ttsStopAction(this.ttsContext()),
      tts_mode: (d) => ttsModeAction(this.ttsContext(), d),
      set_tts: (d) => run(setTtsAction(this.ttsContext(), d)),
      set_speaking_speed: (d) => setSpeakingSpeedAction(this.ttsContext(), d),
      switch_language: (d) =>
        this.recording?.channels
          ? this.sendError(channelError('multichannel_switch_language_not_allowed', 'Use set_channel_language in multi_channel sessions.'))
          : run(switchLanguageAction(this.actionContext(), d)),
      add_channel: (d) => run(addChannelAction(this.actionContext(), d)),
      remove_channel: (d) => run(removeChannelAction(this.actionContext(), d)),
      set_channel_language: (d) => run(setChannelLanguageAction(this.actionContext(), d)),
      rename_speaker: (d) => speakerAction(this.actionContext(), 'rename', d),
      reassign_speaker: (d) => speakerAction(this.actionContext(), 'reassign', d),
      merge_speakers: (d) => speakerAction(this.actionContext(), 'merge', d),
      // Sentence corrections (correction-actions.ts).
      correct_sentence: (d) => run(correctSentenceAction(this.actionContext(), d)),
      undo_correction: (d) => run(undoCorrectionAction(this.actionContext(), d)),
      broadcast_go_live: () => run(this.broadcastAction('broadcast_go_live', 'phase_changed', (h) => h.goLive())),
      broadcast_announcement: (d) => run(this.broadcastAction('broadcast_announcement', 'announcement', (h) => h.announce(d))),
      set_standby_message: (d) => run(this.broadcastAction('set_standby_message', 'standby', (h) => h.setStandbyMessage(d))),
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
      this.guarded(() => this.control(m.action as ControlAction), 'voice-translation', m.action);
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

  /**
   * start: validation, then the key's checks again, then plan and credit. Any refusal is
   * an error message; the connection stays open for another start. During shutdown a start
   * is refused and the connection closed.
   */
  private async start(sent: Record<string, unknown>): Promise<void> {
    let data = sent;
    if (this.host.shuttingDown()) {
      this.sendError(new AppError('service_shutdown', { ...ws, message: 'The service is shutting down; start refused.' }));
      this.close(CLOSE.goingAway, 'service shutdown');
      return;
    }
    // After an ending error (silence timeout, a limit) or a stop, the previous recording is
    // still being finalized: the new start waits for it, so the client sees `status: ended` and
    // `task_complete` before `session_started`.
    if (this.state.kind === 'stopping' && !this.starting) {
      this.starting = true;
      try {
        await this.settled();
      } finally {
        this.starting = false;
      }
      if (!this.open) return;
    }
    if (this.state.kind !== 'connected' || this.starting) {
      this.sendError(
        new AppError('invalid_data', {
          ...ws,
          message: 'A recording is already running or finishing on this connection.',
          details: { message_type: 'voice-translation', action: 'start', state: this.state.kind },
        }),
      );
      return;
    }
    this.starting = true;
    try {
      if (sent.resume_token !== undefined && sent.resume_token !== null) {
        await this.resumeSession(sent.resume_token);
        return;
      }
      if (data.type === 'broadcast' && data.recognition_mode === 'multi_channel') {
        this.sendError(
          channelError('multichannel_broadcast_not_allowed', 'Broadcasts cannot use multi_channel.', { field: 'recognition_mode' }),
        );
        return;
      }
      // A broadcast's recording runs with its channel's settings (host-session.ts).
      let host: BroadcastHost | null = null;
      if (data.type === 'broadcast' && this.ports.broadcasts) {
        const prepared = await prepareBroadcast(this.ports.broadcasts, this.principal, data);
        if (!prepared.ok) {
          this.sendError(prepared.error);
          return;
        }
        host = prepared.host;
        data = prepared.startData;
      }
      const checked = validateStart(data, this.ports.engines);
      if (!checked.ok) {
        this.sendError(checked.error);
        return;
      }
      const badTemplate = unknownTemplate(checked.start, this.ports.templates);
      if (badTemplate) {
        this.sendError(badTemplate);
        return;
      }
      for (const w of checked.warnings) this.sendError(w);
      await this.checkKeyAgain();
      const start = host ? { ...checked.start, type: 'broadcast' as const } : checked.start;
      await this.ports.admit(this.principal, start);
      await host?.claim();
      const sink: OwnerSink = {
        emit: (action, payload) => this.send(eventMessage(action, payload)),
        error: (err) => {
          this.sendError(err);
          // A sentence-level error (a translation that failed) is also the broadcast's viewers' business.
          if (host && err.sid !== undefined) host.sentenceError(err);
        },
      };
      const rec = new Recording(
        { ...this.ports.recording, emit: (action, payload) => sink.emit(action, payload), error: (err) => sink.error(err) },
        this.principal,
        start,
      );
      rec.glossary = this.glossary;
      rec.onMustEnd = () => {
        if (this.running) this.endRecording('normal');
      };
      // A broadcast host reconnects with its broadcast token instead (src/broadcasts/host-session.ts).
      const token = host ? null : (this.host.resume?.issue() ?? null);
      rec.resumeToken = token;
      rec.owner = () => this.ownerState();
      rec.onLost = () => this.letGo(rec);
      try {
        await rec.begin();
      } catch (err) {
        await rec.abandon();
        await host?.release();
        throw err;
      }
      if (!this.open) {
        // The client left while the recording was being set up: nothing was recorded.
        await host?.release();
        this.recording = rec;
        this.state = { kind: 'started', sessionId: rec.sessionId, taskId: rec.taskId };
        this.recordingDone = new Promise((resolve) => {
          this.markDone = resolve;
        });
        this.endRecording('normal');
        return;
      }
      this.recording = rec;
      this.sink = sink;
      this.speech = start.tts ? this.makeSpeech(rec, start.tts) : null;
      this.token = token;
      this.rawStart = data;
      // The session's events reach this client as they reach every other subscriber.
      const toClient = rec.events.attach((e) => this.send(eventMessage(e.event, e.data), isInterim(e)));
      this.detach = toClient;
      if (host) {
        this.broadcast = host;
        await host.attach(
          rec.taskId,
          () => this.broadcastRevoked(),
          (error) => this.broadcastLost(error),
        );
        // Results and translations reach the broadcast's viewers through its host session (phase rules).
        const toViewers = rec.events.attach((e) => host.fromRecording(e.event, e.data as Record<string, unknown>));
        this.detach = () => {
          toClient();
          toViewers();
        };
      }
      this.state = { kind: 'started', sessionId: rec.sessionId, taskId: rec.taskId };
      this.stopIdleClose();
      this.recordingDone = new Promise((resolve) => {
        this.markDone = resolve;
      });
      // Broadcasts are exempt from the silence auto-end (spec).
      this.silence = host ? null : this.watchSilence(checked.start.silenceTimeoutSeconds);
      rec.onSpeech = () => this.silence?.speech();
      this.send(
        eventMessage('session_started', {
          session_id: rec.sessionId,
          task_id: rec.taskId,
          recording_type: start.type,
          recognition_mode: start.recognitionMode,
          ...(rec.channels
            ? {
                channel_mode: 'interleaved',
                channels: rec.channels.specs.map((s) => ({ channel_id: s.channelId, language: s.language, label: s.label })),
              }
            : {}),
          message: 'Recording started.',
          ...(this.token ? { resume_token: this.token, resume_grace_seconds: this.limits.disconnectGraceMs / 1000 } : {}),
          ...(host ? await host.startedFields() : {}),
        }),
      );
    } finally {
      this.starting = false;
    }
  }

  private watchSilence(timeoutSeconds: number): SilenceWatch {
    return new SilenceWatch({
      timeoutMs: timeoutSeconds * 1000,
      warningLeadMs: this.limits.silenceWarningMs,
      onWarning: (silenceSeconds, remainingSeconds) =>
        this.sendError(new AppError('stt_silence_warning', { ...ws, details: { silenceSeconds, remainingSeconds } })),
      onTimeout: (silenceSeconds) => {
        if (!this.running) return;
        this.sendError(new AppError('stt_silence_timeout', { ...ws, details: { silence_seconds: silenceSeconds } }));
        this.endRecording('normal');
      },
    });
  }

  /**
   * start with `resume_token` on a new connection: the recording of a dropped (or still
   * open) connection of the same key continues here. `resume_ok` first, then the session
   * events the client missed while away, then live events, in order.
   */
  private async resumeSession(token: unknown): Promise<void> {
    const directory = this.host.resume;
    if (!directory) {
      this.sendError(new AppError('resume_unavailable', { ...ws, details: { action: 'start', reason: 'not_supported' } }));
      return;
    }
    await this.checkKeyAgain();
    // A recording this process does not hold (any more): through the fleet (src/realtime/live).
    if (this.host.fleet && typeof token === 'string' && directory.wellFormed(token) && !directory.knows(token)) {
      await this.resumeFromFleet(this.host.fleet, token);
      return;
    }
    const found = directory.find<Connection>(token, this.principal);
    if (found instanceof AppError) {
      this.sendError(found);
      return;
    }
    this.adopt(found.surrender());
  }

  /** The recording is taken over from another process (or the store, its process dead) and goes on here. */
  private async resumeFromFleet(fleet: LiveFleet, token: string): Promise<void> {
    const located = await fleet.locate(token, this.principal);
    if (located instanceof AppError) {
      this.sendError(located);
      return;
    }
    const { row, snap } = located;
    const sink: OwnerSink = {
      emit: (action, payload) => this.send(eventMessage(action, payload)),
      error: (err) => this.sendError(err),
    };
    const rec = new Recording(
      { ...this.ports.recording, emit: (action, payload) => sink.emit(action, payload), error: (err) => sink.error(err) },
      this.principal,
      snap.start,
      snap.sessionId,
    );
    rec.resumeToken = token;
    rec.onLost = () => this.letGo(rec);
    try {
      await rec.continueFrom(row, snap, true);
    } catch (err) {
      // Another process may try within the grace (e.g. every recognizer busy here).
      await rec.discard();
      await fleet.giveBack(row.task_id);
      throw err;
    }
    const state: SessionState = { kind: snap.status, sessionId: rec.sessionId, taskId: rec.taskId };
    this.adopt({ recording: rec, state, rawStart: snap.rawStart, glossary: snap.glossary, sink, token, gap: snap.gap, speech: null });
    // In-session TTS as it was on the other process (set_tts and tts_mode changes kept).
    if (snap.tts) this.speech = this.makeSpeech(rec, snap.tts);
  }

  /**
   * A resume on another process asks for this connection's recording: it is parked there
   * (its last audio and state stored) and this connection lets it go, closing if still open.
   * False: there was no running recording to hand over.
   */
  async handOff(graceMs: number): Promise<boolean> {
    const rec = this.recording;
    if (!rec || !this.running) return false;
    const owner = this.ownerState();
    this.state = { ...(this.state as { sessionId: string; taskId: string }), kind: 'stopping' };
    this.token = null;
    // Events until the recording is parked (the last final) reach the resuming client through the snapshot.
    const gap = [...owner.gap];
    this.quiesce();
    this.gapOff();
    this.gapOff = rec.events.attach((e) => {
      if (!isInterim(e) && gap.length < GAP_MAX) gap.push(e);
    });
    rec.owner = () => ({ ...owner, gap });
    const began = Date.now();
    let parked = false;
    try {
      parked = await rec.park(graceMs);
      return parked;
    } catch (err) {
      this.logger.error({ err, task_id: rec.taskId }, 'hand-over failed');
      return false;
    } finally {
      this.logger.info({ task_id: rec.taskId, ms: Date.now() - began, parked }, 'recording hand-over');
      // Not handed over: it ends here, as after a stop (its recognizer already ended).
      if (!parked) await rec.finish('normal').catch((err) => this.logger.error({ err, task_id: rec.taskId }, 'finalization failed'));
      this.gapOff();
      this.forgetRecording('session resumed on another connection');
    }
  }

  /**
   * The recording was taken over by another process while this one still ran it (this process
   * stalled past its lease and the grace): nothing more is recorded or finalized here, and the
   * client, whose session now lives elsewhere, is closed with 4010 (it may resume there).
   */
  private letGo(rec: Recording): void {
    if (this.recording !== rec || !this.running) return;
    this.state = { ...(this.state as { sessionId: string; taskId: string }), kind: 'stopping' };
    this.token = null;
    this.quiesce();
    this.gapOff();
    this.background(rec.discard(), 'letting a recording go');
    this.forgetRecording('session taken over by another process');
  }

  /** What this connection adds to its recording's snapshot (src/realtime/live/snapshot.ts). */
  private ownerState(): OwnerState {
    return {
      rawStart: this.rawStart,
      status: this.state.kind === 'paused' ? 'paused' : 'started',
      gap: this.gap ?? [],
      tts: this.speech?.settings ?? null,
    };
  }

  /** The other side of resumeSession: this connection gives its recording away and closes if still open. */
  private surrender(): Handover {
    const rec = this.recording as Recording;
    this.quiesce();
    this.gapOff();
    const handover: Handover = {
      recording: rec,
      state: this.state,
      rawStart: this.rawStart,
      glossary: this.glossary,
      sink: this.sink as OwnerSink,
      token: this.token as string,
      gap: this.gap ?? [],
      speech: this.speech,
    };
    this.forgetRecording('session resumed on another connection');
    return handover;
  }

  /** Stops this connection's timers and its subscription to its recording's events. */
  private quiesce(): void {
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
    this.silence?.stop();
    this.silence = null;
    this.detach();
    this.detach = () => {};
  }

  /** Forgets a recording handed over, let go or parked elsewhere; the client, if still here, is closed with 4010. */
  private forgetRecording(reason: string): void {
    this.gap = null;
    this.recording = null;
    this.speech = null;
    this.sink = null;
    this.token = null;
    this.state = { kind: 'connected' };
    this.markDone();
    if (this.open) this.close(CLOSE.resumedElsewhere, reason);
  }

  private adopt(h: Handover): void {
    const rec = h.recording;
    this.recording = rec;
    this.state = h.state;
    this.stopIdleClose();
    this.rawStart = h.rawStart;
    this.glossary = h.glossary;
    this.token = h.token;
    this.sink = h.sink;
    this.speech = h.speech;
    h.sink.emit = (action, payload) => this.send(eventMessage(action, payload));
    h.sink.error = (err) => this.sendError(err);
    rec.owner = () => this.ownerState();
    rec.onMustEnd = () => {
      if (this.running) this.endRecording('normal');
    };
    this.recordingDone = new Promise((resolve) => {
      this.markDone = resolve;
    });
    // The silence count starts again at the resume (time away is not counted).
    this.silence = this.watchSilence(rec.start.silenceTimeoutSeconds);
    if (this.state.kind === 'paused') this.silence.pause();
    rec.onSpeech = () => this.silence?.speech();
    this.send(
      eventMessage('resume_ok', {
        session_id: rec.sessionId,
        task_id: rec.taskId,
        recording_type: rec.start.type,
        recognition_mode: rec.start.recognitionMode,
        status: this.state.kind,
        // Audio received so far: the client sends what it captured after this point.
        received_ms: rec.durationMs,
        missed_events: h.gap.length,
        message: 'Recording resumed.',
        // The grace of the next drop, as session_started said (this process's setting).
        resume_grace_seconds: this.limits.disconnectGraceMs / 1000,
      }),
    );
    for (const e of h.gap) this.send(eventMessage(e.event, e.data));
    this.detach = rec.events.attach((e) => this.send(eventMessage(e.event, e.data), isInterim(e)));
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

  private control(action: ControlAction): void {
    const next = transition(this.state, action);
    if (next instanceof AppError) {
      this.sendError(next);
      return;
    }
    if (this.broadcast && action !== 'audio') this.background(this.broadcast.control(action), `broadcast ${action}`);
    if (next.kind === 'stopping') {
      this.status(next.kind);
      this.endRecording('normal');
      return;
    }
    this.state = next;
    if (next.kind === 'paused') this.silence?.pause();
    if (next.kind === 'started') this.silence?.resume();
    // pause and resume lead to paused or started.
    this.status(next.kind as SessionStatus);
  }

  /** A status change is a session event (every audience sees it). */
  private status(status: SessionStatus): void {
    if (this.recording) this.recording.events.publish({ event: 'status', data: { status } });
    else this.send(eventMessage('status', { status }));
  }

  /** Stops a running recording and finalizes it; `status: ended` and `task_complete` follow. */
  private endRecording(kind: FinishKind, why: EndedReason = 'ended'): void {
    if (this.state.kind !== 'started' && this.state.kind !== 'paused') return;
    this.state = { ...this.state, kind: 'stopping' };
    // From here a resume is refused with the reason (resume.ts; on other processes, the row's state).
    if (this.token) this.host.resume?.forget(this.token, why);
    if (this.recording) this.recording.endState = why === 'grace_expired' ? 'grace_expired' : 'ended';
    this.token = null;
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
    this.silence?.stop();
    this.silence = null;
    this.finishing = this.finish(kind);
  }

  private async finish(kind: FinishKind): Promise<void> {
    const rec = this.recording;
    if (!rec) return;
    try {
      const host = this.broadcast;
      this.broadcast = null;
      const finished = rec.finish(kind).catch((err) => {
        this.logger.error({ err, task_id: rec.taskId }, 'finalization failed');
        return 'failed' as const;
      });
      if (host) {
        // The recognizer's last finals and translations reach viewers and caption sinks before the broadcast ends.
        await Promise.race([rec.recognized, finished]);
        await host.recordingEnded().catch((err) => this.logger.error({ err }, 'broadcast end failed'));
        host.dispose();
      }
      const outcome = await finished;
      this.recording = null;
      this.speech = null;
      this.state = { kind: 'connected' };
      // `status: ended` came through the session stream at the end of rec.finish().
      this.detach();
      this.send(eventMessage('task_complete', { task_id: rec.taskId, status: outcome, duration_ms: rec.durationMs }));
      // The session ended well: the connection waits for another start, then closes normally (never 4008).
      if (this.open && !this.closeWhenIdle) this.closeIfIdle(CLOSE.normal, 'session complete');
    } finally {
      this.finishing = null;
      this.markDone();
      if (this.closeWhenIdle) this.close(CLOSE.goingAway, 'service shutdown');
    }
  }

  /** A broadcast action of the host: answered with its event, or session_not_started without a running broadcast. */
  private async broadcastAction(
    action: string,
    reply: string,
    run: (host: BroadcastHost) => Promise<Record<string, unknown>>,
  ): Promise<void> {
    if (!this.broadcast || !this.running) {
      this.sendError(new AppError('session_not_started', { ...ws, details: { action } }));
      return;
    }
    this.send(eventMessage(reply, await run(this.broadcast)));
  }

  /** The broadcast was revoked over REST: the host is told and the recording ends. */
  private broadcastRevoked(): void {
    this.sendError(new AppError('broadcast_token_revoked', ws));
    if (this.running) this.endRecording('normal');
  }

  /** Another host took the broadcast (this process had stopped renewing its lease): the host is told and the recording ends. */
  private broadcastLost(error: AppError): void {
    this.sendError(error);
    if (this.running) this.endRecording('normal');
  }

  private background(p: Promise<unknown>, what: string): void {
    void p.catch((err) => this.logger.error({ err }, `${what} failed`));
  }

  /** The recording's speech: tts_ready goes to whichever connection owns the recording (the sink). */
  private makeSpeech(rec: Recording, settings: TtsSettings): SessionTts {
    const sink = this.sink as OwnerSink;
    const speech = new SessionTts(
      {
        engines: this.ports.recording.engines,
        logger: this.logger,
        sentence: (sid, language) => {
          const origin = rec.sentences.find((s) => s.sid === sid)?.origin;
          const text = rec.translations.get(language)?.get(sid)?.text;
          return origin !== undefined && text !== undefined ? { transcript: origin, text } : null;
        },
        emit: (action, payload) => sink.emit(action, payload),
      },
      settings,
      // Conversation recordings speak in async mode only on tts_play.
      rec.start.type === 'conversation',
    );
    rec.events.attach((e) => speech.onEvent(e));
    return speech;
  }

  private conversationContext(): ConversationContext {
    return {
      running: this.running ? this.recording : null,
      engines: this.ports.engines,
      send: (text) => this.send(text),
      sendError: (err) => this.sendError(err),
    };
  }

  private ttsContext(): TtsContext {
    return {
      running: this.running ? this.recording : null,
      speech: this.speech,
      makeSpeech: (rec, settings) => {
        this.speech = this.makeSpeech(rec, settings);
        return this.speech;
      },
      principal: this.principal,
      ports: this.ports,
      send: (text) => this.send(text),
      sendError: (err) => this.sendError(err),
    };
  }

  /** What the session actions (session-actions.ts) see of this connection, at dispatch time. */
  private actionContext(): ActionContext {
    return {
      recording: this.recording,
      running: this.running ? this.recording : null,
      paused: this.state.kind === 'paused',
      rawStart: this.rawStart,
      principal: this.principal,
      ports: this.ports,
      setGlossary: (g) => {
        this.glossary = g;
        if (this.recording) this.recording.glossary = g;
      },
      send: (text) => this.send(text),
      sendError: (err) => this.sendError(err),
    };
  }

  private onAudio(payload: unknown, via: 'binary' | 'json'): void {
    const next = transition(this.state, 'audio');
    if (next instanceof AppError) {
      // No recording runs (not started yet, or it ended): session_not_started.
      this.sendError(
        new AppError('session_not_started', {
          ...ws,
          message: 'No recording is running: send start first.',
          details: { message_type: via === 'binary' ? 'binary' : 'voice-translation', action: 'audio' },
        }),
      );
      return;
    }
    const bytes = decodeAudioPayload(payload);
    if (bytes instanceof AppError) {
      this.sendError(bytes);
      return;
    }
    // multi_channel: the rate limit is per channel (one channel's worth of bytes per frame).
    if (!this.audio.take(bytes.length / (this.recording?.channels?.width || 1))) {
      this.violation(
        new AppError('invalid_data', {
          ...ws,
          message: 'Audio is arriving faster than 4x real time; the excess was dropped.',
          details: { reason: 'audio_rate', limit_bytes_per_second: this.limits.audioBytesPerSecond },
        }),
      );
      return;
    }
    const rec = this.recording;
    if (!rec || this.state.kind !== 'started') return;
    const mismatch = containerMismatch(bytes, rec.start.audioFormat);
    if (mismatch) {
      this.sendError(mismatch);
      return;
    }
    rec.write(bytes);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
