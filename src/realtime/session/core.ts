/**
 * What a live session holds (session.ts) and the ways it changes: its recording and what goes
 * with it (resume token, start fields, glossary, speech, silence watch, hosted broadcast, the
 * events kept while its client is away), and the socket attached now. Nothing outside the
 * session assigns any of it: opening.ts, handover.ts, registry.ts and the action contexts call
 * these methods, and its recordings get their hooks (snapshot share, must-end, speech, lost)
 * in their constructor. LiveSession adds the lifecycle that drives it (`drive`) and its effects.
 */
import type { Logger } from 'pino';
import type { Glossary } from '../../glossary/index.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { SessionEvent } from '../../stream/events.js';
import type { RealtimeLimits } from '../limits.js';
import type { OwnerState } from '../live/snapshot.js';
import type { HostedAudience, RealtimePorts } from '../ports.js';
import { eventMessage } from '../protocol.js';
import { Recording } from '../recording.js';
import type { ResumeDirectory } from '../resume.js';
import type { SessionTts } from '../session-tts.js';
import { SilenceWatch } from '../silence.js';
import type { StartRequest } from '../start.js';
import type { TtsSettings } from '../tts-settings.js';
import { collectGap } from './gap.js';
import { Hosting } from './hosting.js';
import { isIdle, isLive, type LifecycleEvent, type LifecycleState, publicState, type Step } from './lifecycle.js';
import { type SessionSocket, sendSessionEvent } from './socket.js';
import { sessionSpeech } from './speech.js';

const ws = { variant: 'websocket' as const };

/** Every port a session uses, given once. */
export interface SessionDeps {
  principal: Principal;
  ports: RealtimePorts;
  limits: RealtimeLimits;
  logger: Logger;
  /** Resume tokens of this process (resume.ts); without it sessions cannot be resumed. */
  resume?: ResumeDirectory;
}

export abstract class SessionCore {
  /** Where this session is in its life: every change goes through `drive`. */
  protected state: LifecycleState = { kind: 'connected' };
  protected rec: Recording | null = null;
  /** The start's fields as sent (set_summary re-validates against them). */
  private sent: Record<string, unknown> = {};
  /** The glossary sent with `config`: applies to the running recording and the following ones. */
  private glossary: Glossary | null = null;
  /** The running recording's resume token (null for broadcasts and once it cannot be resumed). */
  protected token: string | null = null;
  /** In-session TTS of the running recording (session-tts.ts), if set up. */
  protected tts: SessionTts | null = null;
  /** The broadcast this session claims or hosts (hosting.ts). */
  protected readonly hosting: Hosting;
  /** While the client is away: the session events it missed, replayed at the resume. */
  protected gap: SessionEvent[] | null = null;
  protected gapOff: () => void = () => {};
  /** While a hand-over parks the recording: the snapshot's share, as it was when the hand-over began. */
  private handingOver: OwnerState | null = null;
  /** Detaches the socket (and a hosted broadcast) from the session stream. */
  protected detach: () => void = () => {};
  protected silence: SilenceWatch | null = null;
  protected grace: NodeJS.Timeout | null = null;
  protected finishing: Promise<void> | null = null;
  /** Resolves when the running recording has been finalized (or left this process). */
  protected recordingDone: Promise<void> = Promise.resolve();
  protected markDone: () => void = () => {};
  /** Shutdown: resolves once the socket is closed (the session drained or the idle wait passed). */
  protected drained: Promise<void> = Promise.resolve();

  constructor(
    readonly deps: SessionDeps,
    /** The socket attached now (NO_SOCKET while the client is away; a resume attaches another: takeOver). */
    protected attached: SessionSocket,
  ) {
    this.hosting = new Hosting(deps.logger);
  }

  get life(): LifecycleState {
    return this.state;
  }

  get recording(): Recording | null {
    return this.rec;
  }

  get socket(): SessionSocket {
    return this.attached;
  }

  get rawStart(): Record<string, unknown> {
    return this.sent;
  }

  get speech(): SessionTts | null {
    return this.tts;
  }

  get owner(): Principal {
    return this.deps.principal;
  }

  get resumeToken(): string | null {
    return this.token;
  }

  get taskId(): string | null {
    return this.rec?.taskId ?? null;
  }

  /** No recording belongs to the session: a start may begin, an idle socket may be closed. */
  get idle(): boolean {
    return isIdle(this.state);
  }

  /** A recording runs, or waits for its client inside the grace. */
  get running(): boolean {
    return this.rec !== null && isLive(this.state);
  }

  /** Moves the lifecycle one step and runs its effects (session.ts). */
  abstract drive(event: LifecycleEvent): Step;

  /**
   * A recording of this session (begun by a start, or continued from another process): it is
   * given the session's hooks once, and they answer with the session as it is when they fire
   * (its socket after a resume, its silence watch, its state during a hand-over).
   */
  newRecording(start: StartRequest, resumeToken: string | null, sessionId?: string): Recording {
    const rec: Recording = new Recording(
      {
        ...this.deps.ports.recording,
        emit: (action, payload) => this.emit(action, payload),
        // Sentence-level errors also reach the session stream (sentence_error), where the broadcast reads them.
        error: (err) => this.attached.sendError(err),
      },
      this.deps.principal,
      start,
      sessionId,
      {
        glossary: this.glossary,
        resumeToken,
        owner: () => this.ownerState(),
        onMustEnd: () => this.drive({ kind: 'end' }),
        onSpeech: () => this.silence?.speech(),
        // Taken over by another process: nothing more is recorded or finalized here (a recording no longer ours is past).
        onLost: () => {
          if (this.rec === rec) this.drive({ kind: 'taken_away' });
        },
      },
    );
    return rec;
  }

  /** A start claimed `host` for the recording being set up (null: the claim is given back by the start). */
  claim(host: HostedAudience | null): void {
    this.hosting.claim(host);
  }

  /**
   * The recording is this session's now: finalization is awaited from here on. `carried`: a
   * recording continued from another process brings its start fields, glossary and token.
   */
  own(rec: Recording, carried?: { rawStart: Record<string, unknown>; glossary: Glossary | null; token: string }): void {
    this.rec = rec;
    this.recordingDone = new Promise((resolve) => {
      this.markDone = resolve;
    });
    if (!carried) return;
    this.sent = carried.rawStart;
    this.glossary = carried.glossary;
    this.token = carried.token;
  }

  /**
   * The started recording runs for this socket: its token, start fields and speech are the
   * session's, its events reach the socket, and its silence is watched (null: not watched).
   */
  run(o: { token: string | null; rawStart: Record<string, unknown>; tts: TtsSettings | null; silenceSeconds: number | null }): void {
    const rec = this.rec;
    if (!rec) return;
    this.tts = o.tts ? this.makeSpeech(rec, o.tts) : null;
    this.token = o.token;
    this.sent = o.rawStart;
    // The session's events reach this client as they reach every other subscriber.
    this.subscribe(rec);
    this.watch(o.silenceSeconds);
  }

  /** The claimed broadcast is hosted by the running recording: it subscribes to the session stream for its viewers. */
  async hostBroadcast(host: HostedAudience): Promise<void> {
    const rec = this.rec;
    if (!rec) return;
    const toClient = this.detach;
    // Phase rules (the broadcasts feature) decide what of the stream reaches its viewers.
    const toViewers = await this.hosting.host(
      host,
      rec,
      () => this.broadcastRevoked(),
      (error) => this.broadcastLost(error),
    );
    this.detach = () => {
      toClient();
      toViewers();
    };
  }

  /** The silence count (re)starts (null: none, e.g. broadcasts); it stands while paused or away. */
  watch(timeoutSeconds: number | null): void {
    this.silence = timeoutSeconds === null ? null : this.watchSilence(timeoutSeconds);
    if (this.state.kind !== 'running') this.silence?.pause();
  }

  /**
   * A resume: `socket` takes the session over (a previous socket still open is closed with
   * 4010 and forgets the session). Returns the events the client missed while away.
   */
  takeOver(socket: SessionSocket): SessionEvent[] {
    const gap = this.gap ?? [];
    const previous = this.attached;
    // Stops the grace and the silence watch; the 4010 goes to the previous socket.
    this.drive({ kind: 'socket_attached' });
    previous.released();
    this.gap = null;
    this.attached = socket;
    return gap;
  }

  /**
   * A hand-over to another process begins: the grace and the silence watch stop, the token is
   * the resuming process's, and until the recording is parked its snapshot keeps the state as
   * it is now, with the events the client misses meanwhile (they reach it through the snapshot).
   */
  handOverBegins(): void {
    const rec = this.rec;
    if (!rec) return;
    const owner = this.ownerState();
    this.drive({ kind: 'hand_over' });
    const gap = [...owner.gap];
    this.detach();
    this.detach = () => {};
    this.gapOff();
    this.gapOff = collectGap(rec, gap);
    this.handingOver = { ...owner, gap };
  }

  /** The hand-over is over (parked, or finalized here): the recording is no longer this session's. */
  handOverEnds(): void {
    this.gapOff();
    this.forgetRecording();
    this.drive({ kind: 'handed_over' });
  }

  /** Attaches the socket to the session stream: every event reaches it as it reaches every other subscriber. */
  subscribe(rec: Recording): void {
    this.detach = rec.events.attach((e) => sendSessionEvent(this.attached, e));
  }

  /** Where the recording's own messages (errors, finalization events) go: this session's socket, whichever it is now. */
  emit(action: string, payload: Record<string, unknown>): void {
    this.attached.send(eventMessage(action, payload));
  }

  /** What this session adds to its recording's snapshot (src/realtime/live/snapshot.ts). */
  ownerState(): OwnerState {
    if (this.handingOver) return this.handingOver;
    return {
      rawStart: this.sent,
      status: publicState(this.state) === 'paused' ? 'paused' : 'started',
      gap: this.gap ?? [],
      tts: this.tts?.settings ?? null,
    };
  }

  /** `config` sent a glossary: the running recording uses it from now on, and so do the following ones. */
  setGlossary(glossary: Glossary | null): void {
    this.glossary = glossary;
    this.rec?.setGlossary(glossary);
  }

  /** In-session TTS for the running recording (set_tts, or a resume carrying it): tts_ready goes to whichever socket the session has. */
  startSpeech(rec: Recording, settings: TtsSettings): SessionTts {
    this.tts = this.makeSpeech(rec, settings);
    return this.tts;
  }

  /** Forgets a recording handed over, let go or parked elsewhere. */
  protected forgetRecording(): void {
    this.gap = null;
    this.handingOver = null;
    this.rec = null;
    this.tts = null;
    this.token = null;
    this.markDone();
  }

  private watchSilence(timeoutSeconds: number): SilenceWatch {
    return new SilenceWatch({
      timeoutMs: timeoutSeconds * 1000,
      warningLeadMs: this.deps.limits.silenceWarningMs,
      onWarning: (silenceSeconds, remainingSeconds) =>
        this.attached.sendError(new AppError('stt_silence_warning', { ...ws, details: { silenceSeconds, remainingSeconds } })),
      onTimeout: (silenceSeconds) => {
        this.drive({ kind: 'silence_timeout', silenceSeconds });
      },
    });
  }

  private makeSpeech(rec: Recording, settings: TtsSettings): SessionTts {
    const { ports, logger } = this.deps;
    return sessionSpeech(
      { engines: ports.recording.engines, logger, emit: (action, payload) => this.emit(action, payload) },
      rec,
      settings,
    );
  }

  protected background(p: Promise<unknown>, what: string): void {
    void p.catch((err) => this.deps.logger.error({ err }, `${what} failed`));
  }

  /** The broadcast was revoked over REST: the host is told and the recording ends. */
  private broadcastRevoked(): void {
    this.attached.sendError(new AppError('broadcast_token_revoked', ws));
    this.drive({ kind: 'end' });
  }

  /** Another host took the broadcast (this process had stopped renewing its lease): the host is told and the recording ends. */
  private broadcastLost(error: AppError): void {
    this.attached.sendError(error);
    this.drive({ kind: 'end' });
  }
}
