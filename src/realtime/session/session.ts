/**
 * One live session: the recording, its speech (TTS), its silence watch, its resume token and
 * the events kept while its client is away. It outlives its socket: a drop leaves it `away`,
 * a resume attaches the new socket (registry.ts), and every change of its life goes through
 * the pure lifecycle (lifecycle.ts), whose effects are run here. The socket (connection.ts)
 * parses, rate-limits and hands each action over; the set-up of a start or a resume is in
 * opening.ts, the hand-over to another process in handover.ts.
 */
import type { Logger } from 'pino';
import type { Glossary } from '../../glossary/index.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import { isTransient, type SessionEvent, type SessionStatus } from '../../stream/events.js';
import { containerMismatch } from '../audio-intake.js';
import type { FinishKind } from '../finalize.js';
import type { RealtimeLimits } from '../limits.js';
import type { OwnerState } from '../live/snapshot.js';
import type { HostedAudience, RealtimePorts } from '../ports.js';
import { CLOSE, eventMessage } from '../protocol.js';
import type { Recording } from '../recording.js';
import type { EndedReason, Resumable, ResumeDirectory } from '../resume.js';
import type { SessionTts } from '../session-tts.js';
import { SilenceWatch } from '../silence.js';
import type { TtsSettings } from '../tts-settings.js';
import { type Effect, isIdle, isLive, type LifecycleEvent, type LifecycleState, publicState, type Step, step } from './lifecycle.js';
import { NO_SOCKET, type SessionSocket, sendSessionEvent } from './socket.js';
import { sessionSpeech } from './speech.js';

const ws = { variant: 'websocket' as const };
const GAP_MAX = 2000;
/** Keeps into `gap` what a client away misses: finals, translations, statuses (interims dropped), at most GAP_MAX. */
export function collectGap(rec: Recording, gap: SessionEvent[]): () => void {
  return rec.events.attach((e) => {
    if (!isTransient(e) && gap.length < GAP_MAX) gap.push(e);
  });
}

/** Every port a session uses, given once. */
export interface SessionDeps {
  principal: Principal;
  ports: RealtimePorts;
  limits: RealtimeLimits;
  logger: Logger;
  /** Resume tokens of this process (resume.ts); without it sessions cannot be resumed. */
  resume?: ResumeDirectory;
}

export class LiveSession implements Resumable {
  /** Where this session is in its life: every change goes through `drive`. */
  life: LifecycleState = { kind: 'connected' };
  recording: Recording | null = null;
  /** The start's fields as sent (set_summary re-validates against them). */
  rawStart: Record<string, unknown> = {};
  /** The glossary sent with `config`: applies to the running recording and the following ones. */
  glossary: Glossary | null = null;
  /** The running recording's resume token (null for broadcasts and once it cannot be resumed). */
  token: string | null = null;
  /** In-session TTS of the running recording (session-tts.ts), if set up. */
  speech: SessionTts | null = null;
  /** The broadcast this session hosts while its recording runs (a HostedAudience: ports.ts). */
  broadcast: HostedAudience | null = null;
  /** A broadcast claimed by a start still being set up (given back if its client leaves meanwhile). */
  claimed: HostedAudience | null = null;
  /** While the client is away: the session events it missed, replayed at the resume. */
  gap: SessionEvent[] | null = null;
  gapOff: () => void = () => {};
  /** Detaches the socket from the session stream. */
  detach: () => void = () => {};
  silence: SilenceWatch | null = null;
  private grace: NodeJS.Timeout | null = null;
  private finishing: Promise<void> | null = null;
  /** Resolves when the running recording has been finalized (or left this process). */
  recordingDone: Promise<void> = Promise.resolve();
  private markDone: () => void = () => {};
  /** Shutdown: resolves once the socket is closed (the session drained or the idle wait passed). */
  private drained: Promise<void> = Promise.resolve();

  constructor(
    readonly deps: SessionDeps,
    /** The socket attached now (NO_SOCKET while the client is away). */
    public socket: SessionSocket,
  ) {}

  get owner(): Principal {
    return this.deps.principal;
  }

  get resumeToken(): string | null {
    return this.token;
  }

  get taskId(): string | null {
    return this.recording?.taskId ?? null;
  }

  /** No recording belongs to the session: a start may begin, an idle socket may be closed. */
  get idle(): boolean {
    return isIdle(this.life);
  }

  /** A recording runs, or waits for its client inside the grace. */
  get running(): boolean {
    return this.recording !== null && isLive(this.life);
  }

  /** A recording still connected is taken over too (the client saw the drop first). */
  resumeRefusal(): string | null {
    return this.running ? null : 'recording_ending';
  }

  /** Resolves when no recording of this session is left to finalize. */
  async settled(): Promise<void> {
    await this.recordingDone;
    await this.finishing;
  }

  /** Moves the lifecycle one step and runs the effects it returns, in order. */
  drive(event: LifecycleEvent): Step {
    const next = step(this.life, event);
    this.life = next.state;
    for (const effect of next.effects) this.apply(effect);
    return next;
  }

  /** The recording is this session's now: finalization is awaited from here on. */
  own(rec: Recording): void {
    this.recording = rec;
    this.recordingDone = new Promise((resolve) => {
      this.markDone = resolve;
    });
  }

  /** The socket closed: the session waits for a resume (away) or ends as its lifecycle says. */
  socketLost(): void {
    this.detach();
    this.drive({ kind: 'socket_lost' });
    this.socket = NO_SOCKET;
  }

  /** Graceful shutdown: `service_shutdown`, then the session drains and the socket closes (1001). */
  async drain(): Promise<void> {
    this.drive({ kind: 'drain' });
    await this.drained;
  }

  /** POST /tasks/{id}/force-fail on this session's task: the client is told, the recording stops. */
  forceEnd(): void {
    if (this.recording) this.drive({ kind: 'force_end', taskId: this.recording.taskId });
  }

  /** Audio arrived: refused (the error was sent), dropped (paused) or to be recorded. */
  audio(via: 'binary' | 'json'): 'refused' | 'dropped' | 'record' {
    const accepted = this.drive({ kind: 'audio', via });
    if (accepted.effects.some((e) => e.kind === 'send_error')) return 'refused';
    return accepted.effects.some((e) => e.kind === 'record_audio') ? 'record' : 'dropped';
  }

  /** Audio that passed the rate limit: written unless its container does not match the start's format. */
  write(bytes: Buffer): void {
    const rec = this.recording;
    if (!rec) return;
    const mismatch = containerMismatch(bytes, rec.start.audioFormat);
    if (mismatch) {
      this.socket.sendError(mismatch);
      return;
    }
    rec.write(bytes);
  }

  /** Attaches the socket to the session stream: every event reaches it as it reaches every other subscriber. */
  subscribe(rec: Recording): void {
    this.detach = rec.events.attach((e) => sendSessionEvent(this.socket, e));
  }

  /** Where the recording's own messages (errors, finalization events) go: this session's socket, whichever it is now. */
  emit(action: string, payload: Record<string, unknown>): void {
    this.socket.send(eventMessage(action, payload));
  }

  /** What this session adds to its recording's snapshot (src/realtime/live/snapshot.ts). */
  ownerState(): OwnerState {
    return {
      rawStart: this.rawStart,
      status: publicState(this.life) === 'paused' ? 'paused' : 'started',
      gap: this.gap ?? [],
      tts: this.speech?.settings ?? null,
    };
  }

  /** Forgets a recording handed over, let go or parked elsewhere. */
  forgetRecording(): void {
    this.gap = null;
    this.recording = null;
    this.speech = null;
    this.token = null;
    this.markDone();
  }

  watchSilence(timeoutSeconds: number): SilenceWatch {
    return new SilenceWatch({
      timeoutMs: timeoutSeconds * 1000,
      warningLeadMs: this.deps.limits.silenceWarningMs,
      onWarning: (silenceSeconds, remainingSeconds) =>
        this.socket.sendError(new AppError('stt_silence_warning', { ...ws, details: { silenceSeconds, remainingSeconds } })),
      onTimeout: (silenceSeconds) => {
        this.drive({ kind: 'silence_timeout', silenceSeconds });
      },
    });
  }

  /** The recording's speech: tts_ready goes to whichever socket the session has now. */
  makeSpeech(rec: Recording, settings: TtsSettings): SessionTts {
    const { ports, logger } = this.deps;
    return sessionSpeech(
      { engines: ports.recording.engines, logger, emit: (action, payload) => this.emit(action, payload) },
      rec,
      settings,
    );
  }

  background(p: Promise<unknown>, what: string): void {
    void p.catch((err) => this.deps.logger.error({ err }, `${what} failed`));
  }

  // The hosted broadcast: every interaction with it is below and in apply() (one field, `broadcast`).

  /** A broadcast action of the host: answered with its event, or session_not_started without a running broadcast. */
  async broadcastAction(action: string, reply: string, run: (host: HostedAudience) => Promise<Record<string, unknown>>): Promise<void> {
    if (!this.broadcast || !this.running) {
      this.socket.sendError(new AppError('session_not_started', { ...ws, details: { action } }));
      return;
    }
    this.emit(reply, await run(this.broadcast));
  }

  /** The broadcast was revoked over REST: the host is told and the recording ends. */
  broadcastRevoked(): void {
    this.socket.sendError(new AppError('broadcast_token_revoked', ws));
    this.drive({ kind: 'end' });
  }

  /** Another host took the broadcast (this process had stopped renewing its lease): the host is told and the recording ends. */
  broadcastLost(error: AppError): void {
    this.socket.sendError(error);
    this.drive({ kind: 'end' });
  }

  private apply(effect: Effect): void {
    const rec = this.recording;
    switch (effect.kind) {
      case 'send_error':
        this.socket.sendError(effect.error);
        return;
      case 'publish_status':
        this.status(effect.status);
        return;
      case 'broadcast_control':
        if (this.broadcast) this.background(this.broadcast.control(effect.action), `broadcast ${effect.action}`);
        return;
      case 'broadcast_host_dropped':
        if (this.broadcast) this.background(this.broadcast.hostDropped(), 'broadcast freeze');
        return;
      case 'broadcast_release': {
        const claimed = this.claimed;
        this.claimed = null;
        if (claimed) this.background(claimed.release(), 'broadcast release');
        return;
      }
      case 'silence':
        if (effect.op === 'pause') this.silence?.pause();
        else if (effect.op === 'resume') this.silence?.resume();
        else {
          this.silence?.stop();
          this.silence = null;
        }
        return;
      case 'keep_gap': {
        if (!rec) return;
        const gap: SessionEvent[] = [];
        this.gap = gap;
        this.gapOff = collectGap(rec, gap);
        return;
      }
      case 'arm_grace':
        this.grace = setTimeout(() => this.drive({ kind: 'grace_expired' }), this.deps.limits.disconnectGraceMs);
        return;
      case 'cancel_grace':
        if (this.grace) clearTimeout(this.grace);
        this.grace = null;
        return;
      case 'finalize':
        this.endRecording(effect.finish, effect.why);
        return;
      case 'park':
        // The token is the resuming process's now (handover.ts parks the recording for it).
        this.token = null;
        return;
      case 'let_go':
        if (!rec) return;
        this.token = null;
        this.detach();
        this.detach = () => {};
        this.gapOff();
        this.background(rec.discard(), 'letting a recording go');
        this.forgetRecording();
        return;
      case 'move_out':
        this.detach();
        this.detach = () => {};
        this.gapOff();
        return;
      case 'close_socket':
        this.socket.close(effect.code, effect.reason);
        return;
      case 'close_when_idle':
        // The session ended well: the socket waits for another start, then closes normally (never 4008).
        if (!this.socket.gone) this.socket.closeWhenIdle();
        return;
      case 'drain_wait':
        this.drained = this.drainWait(effect.freezeBroadcast);
        return;
      case 'close_soon':
        this.drained = this.closeSoon();
        return;
      case 'record_audio':
        // write() records the frame once it passed the rate limit.
        return;
    }
  }

  /** A status change is a session event (every audience sees it). */
  private status(status: SessionStatus): void {
    if (this.recording) this.recording.events.publish({ event: 'status', data: { status } });
    else this.emit('status', { status });
  }

  /** Stops the recording and finalizes it; `status: ended` and `task_complete` follow. */
  private endRecording(kind: FinishKind, why: EndedReason): void {
    // From here a resume is refused with the reason (resume.ts; on other processes, the row's state).
    if (this.token) this.deps.resume?.forget(this.token, why);
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
        this.deps.logger.error({ err, task_id: rec.taskId }, 'finalization failed');
        return 'failed' as const;
      });
      if (host) {
        // The recognizer's last finals and translations reach viewers and caption sinks before the broadcast ends.
        await Promise.race([rec.recognized, finished]);
        await host.recordingEnded().catch((err) => this.deps.logger.error({ err }, 'broadcast end failed'));
        host.dispose();
      }
      const outcome = await finished;
      this.recording = null;
      this.speech = null;
      // `status: ended` came through the session stream at the end of rec.finish().
      this.detach();
      this.emit('task_complete', { task_id: rec.taskId, status: outcome, duration_ms: rec.durationMs });
    } finally {
      this.finishing = null;
      this.markDone();
      // Waits for another start (1000 when none comes), or closes at once while shutting down (1001).
      this.drive({ kind: 'finished' });
    }
  }

  /** Shutdown with a recording: it goes on until the client stops it or the drain deadline passes. */
  private async drainWait(freezeBroadcast: boolean): Promise<void> {
    // A broadcast outlives this process: frozen now, its viewers wait for the host, who can
    // start it again on another node at once (a new recording there; this one ends with the drain).
    if (freezeBroadcast && this.broadcast) {
      await this.broadcast.hostDropped().catch((err) => this.deps.logger.error({ err }, 'broadcast freeze'));
    }
    await Promise.race([this.recordingDone, sleep(this.deps.limits.drainMs)]);
    this.drive({ kind: 'drain_deadline' });
    await this.settled();
    this.socket.close(CLOSE.goingAway, 'service shutdown');
  }

  /** Shutdown without a recording: the client has a moment to leave by itself. */
  private async closeSoon(): Promise<void> {
    if (!this.socket.gone) await this.socket.closedWithin(this.deps.limits.idleCloseMs);
    this.socket.close(CLOSE.goingAway, 'service shutdown');
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
