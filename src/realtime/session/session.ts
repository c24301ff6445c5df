/**
 * One live session: the recording, its speech (TTS), its silence watch, its resume token and
 * the events kept while its client is away (what it holds and how that changes: core.ts). It
 * outlives its socket: a drop leaves it `away`, a resume attaches the new socket
 * (registry.ts), and every change of its life goes through the pure lifecycle (lifecycle.ts),
 * whose effects are run here, with the recording's finalization and the shutdown drain. The
 * socket (connection.ts) parses, rate-limits and hands each action over; the set-up of a
 * start or a resume is in opening.ts, the hand-over to another process in handover.ts.
 */
import { AppError } from '../../platform/errors/app-error.js';
import type { SessionEvent, SessionStatus } from '../../stream/events.js';
import { containerMismatch } from '../audio-intake.js';
import type { FinishKind } from '../finalize.js';
import type { HostedAudience } from '../ports.js';
import { CLOSE } from '../protocol.js';
import type { EndedReason, Resumable } from '../resume.js';
import { SessionCore } from './core.js';
import { collectGap } from './gap.js';
import { type Effect, type LifecycleEvent, type Step, step } from './lifecycle.js';
import { NO_SOCKET } from './socket.js';

export type { SessionDeps } from './core.js';

const ws = { variant: 'websocket' as const };

export class LiveSession extends SessionCore implements Resumable {
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
    const next = step(this.state, event);
    this.state = next.state;
    for (const effect of next.effects) this.apply(effect);
    return next;
  }

  /** The socket closed: the session waits for a resume (away) or ends as its lifecycle says. */
  socketLost(): void {
    this.detach();
    this.drive({ kind: 'socket_lost' });
    this.attached = NO_SOCKET;
  }

  /** Graceful shutdown: `service_shutdown`, then the session drains and the socket closes (1001). */
  async drain(): Promise<void> {
    this.drive({ kind: 'drain' });
    await this.drained;
  }

  /** POST /tasks/{id}/force-fail on this session's task: the client is told, the recording stops. */
  forceEnd(): void {
    if (this.rec) this.drive({ kind: 'force_end', taskId: this.rec.taskId });
  }

  /** Audio arrived: refused (the error was sent), dropped (paused) or to be recorded. */
  audio(via: 'binary' | 'json'): 'refused' | 'dropped' | 'record' {
    const accepted = this.drive({ kind: 'audio', via });
    if (accepted.effects.some((e) => e.kind === 'send_error')) return 'refused';
    return accepted.effects.some((e) => e.kind === 'record_audio') ? 'record' : 'dropped';
  }

  /** Audio that passed the rate limit: written unless its container does not match the start's format. */
  write(bytes: Buffer): void {
    const rec = this.rec;
    if (!rec) return;
    const mismatch = containerMismatch(bytes, rec.start.audioFormat);
    if (mismatch) {
      this.attached.sendError(mismatch);
      return;
    }
    rec.write(bytes);
  }

  /** A broadcast action of the host: answered with its event, or session_not_started without a running broadcast. */
  async broadcastAction(action: string, reply: string, run: (host: HostedAudience) => Promise<Record<string, unknown>>): Promise<void> {
    const host = this.hosting.current;
    if (!host || !this.running) {
      this.attached.sendError(new AppError('session_not_started', { ...ws, details: { action } }));
      return;
    }
    this.emit(reply, await run(host));
  }

  private apply(effect: Effect): void {
    const rec = this.rec;
    switch (effect.kind) {
      case 'send_error':
        this.attached.sendError(effect.error);
        return;
      case 'publish_status':
        this.status(effect.status);
        return;
      case 'broadcast_control':
        this.hosting.control(effect.action);
        return;
      case 'broadcast_host_dropped':
        this.hosting.hostDropped();
        return;
      case 'broadcast_release':
        this.hosting.releaseClaim();
        return;
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
        this.attached.close(effect.code, effect.reason);
        return;
      case 'close_when_idle':
        // The session ended well: the socket waits for another start, then closes normally (never 4008).
        if (!this.attached.gone) this.attached.closeWhenIdle();
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
    if (this.rec) this.rec.events.publish({ event: 'status', data: { status } });
    else this.emit('status', { status });
  }

  /** Stops the recording and finalizes it; `status: ended` and `task_complete` follow. */
  private endRecording(kind: FinishKind, why: EndedReason): void {
    // From here a resume is refused with the reason (resume.ts; on other processes, the row's state).
    if (this.token) this.deps.resume?.forget(this.token, why);
    this.token = null;
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
    this.silence?.stop();
    this.silence = null;
    this.finishing = this.finish(kind, why === 'grace_expired' ? 'grace_expired' : 'ended');
  }

  private async finish(kind: FinishKind, endState: 'ended' | 'grace_expired'): Promise<void> {
    const rec = this.rec;
    if (!rec) return;
    try {
      const host = this.hosting.take();
      const finished = rec.finish(kind, endState).catch((err) => {
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
      this.rec = null;
      this.tts = null;
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
    if (freezeBroadcast && this.hosting.current) await this.hosting.freeze();
    await Promise.race([this.recordingDone, sleep(this.deps.limits.drainMs)]);
    this.drive({ kind: 'drain_deadline' });
    await this.settled();
    this.attached.close(CLOSE.goingAway, 'service shutdown');
  }

  /** Shutdown without a recording: the client has a moment to leave by itself. */
  private async closeSoon(): Promise<void> {
    if (!this.attached.gone) await this.attached.closedWithin(this.deps.limits.idleCloseMs);
    this.attached.close(CLOSE.goingAway, 'service shutdown');
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
