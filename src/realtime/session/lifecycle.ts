/**
 * The life of one live session, as a pure function: `step(state, event)` returns the next
 * state and what must happen (effects, as data), and touches nothing. The connection (and the
 * session object that outlives it) runs the effects: sends, timers, finalization, parking.
 * Modelled on src/broadcasts/phase.ts.
 *
 *   connected --start--> starting --started--> running <--pause/resume--> paused
 *        ^                  | start_failed        |  socket_lost (both)       |
 *        +------------------+                     v                           v
 *                                                away (inside the resume grace; socket_attached returns)
 *   running | paused | away --stop/end/grace_expired/drain_deadline--> finishing --finished--> ended
 *   running | paused | away --hand_over--> handing_off --handed_over--> ended
 *
 * `ended` behaves as `connected` for a new start (a connection runs recordings one after another).
 * `draining` marks a session that graceful shutdown is waiting for: once finalized, its socket
 * closes with 1001 instead of waiting for another start.
 */
import { AppError } from '../../platform/errors/app-error.js';
import type { FinishKind } from '../finalize.js';
import { CLOSE } from '../protocol.js';
import type { EndedReason } from '../resume.js';

export type LifecycleState =
  | { kind: 'connected' }
  /** A start (or resume) is being validated and set up; `socketLost`: the client left meanwhile. */
  | { kind: 'starting'; socketLost: boolean }
  | { kind: 'running'; draining: boolean }
  | { kind: 'paused'; draining: boolean }
  /** The socket dropped; the recording goes on and waits for a resume until the grace expires. */
  | { kind: 'away'; paused: boolean; draining: boolean }
  /** Another process resumes it: the recording is being parked for it. */
  | { kind: 'handing_off' }
  /** Finalization runs; `startWaiting`: a new start waits for it (it then begins at once). */
  | { kind: 'finishing'; draining: boolean; startWaiting: boolean }
  | { kind: 'ended' };

export type LifecycleKind = LifecycleState['kind'];

export type LifecycleEvent =
  /** The client sent `start` (with or without a resume token). */
  | { kind: 'start' }
  /** The recording began, or one was taken over by this socket (`resumed`; `paused` as it was). */
  | { kind: 'started'; paused?: boolean; resumed?: boolean }
  | { kind: 'start_failed' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'stop' }
  | { kind: 'audio'; via: 'binary' | 'json' }
  | { kind: 'socket_lost' }
  /** A resume on another socket of this process takes the session over. */
  | { kind: 'socket_attached' }
  /** A resume on another process asks for the session (it is parked for that process). */
  | { kind: 'hand_over' }
  /** Parking ended (parked, or finalized here when it could not be). */
  | { kind: 'handed_over' }
  /** Another process took the recording over while this one still ran it (a stalled lease). */
  | { kind: 'taken_away' }
  /** The session must end: a limit was reached, the broadcast was revoked or lost. */
  | { kind: 'end' }
  | { kind: 'silence_timeout'; silenceSeconds: number }
  | { kind: 'force_end'; taskId: string }
  | { kind: 'grace_expired' }
  /** Graceful shutdown began. */
  | { kind: 'drain' }
  | { kind: 'drain_deadline' }
  /** Finalization completed (task_complete was sent). */
  | { kind: 'finished' };

export type LifecycleEventKind = LifecycleEvent['kind'];

export type SessionStatusChange = 'started' | 'paused' | 'stopping';

export type Effect =
  | { kind: 'send_error'; error: AppError }
  /** A `status` session event (every audience sees it). */
  | { kind: 'publish_status'; status: SessionStatusChange }
  | { kind: 'broadcast_control'; action: 'pause' | 'resume' | 'stop' }
  /** The broadcast this session hosts freezes: its viewers wait for the host. */
  | { kind: 'broadcast_host_dropped' }
  /** The broadcast claimed for a start whose client left before it began is given back. */
  | { kind: 'broadcast_release' }
  | { kind: 'silence'; op: 'pause' | 'resume' | 'stop' }
  | { kind: 'record_audio' }
  /** Keep the session events the away client misses, for its resume. */
  | { kind: 'keep_gap' }
  | { kind: 'arm_grace' }
  | { kind: 'cancel_grace' }
  /** Stop the recording and finalize it; resumes are refused from now on with `why`. */
  | { kind: 'finalize'; finish: FinishKind; why: EndedReason }
  /** Park the recording for the process that resumes it. */
  | { kind: 'park' }
  /** Drop the recording without finalizing it (another process holds it now). */
  | { kind: 'let_go' }
  /** The session moves to the resuming socket (stop this socket's subscriptions). */
  | { kind: 'move_out' }
  | { kind: 'close_socket'; code: number; reason: string }
  /** Wait for another start, then close (1000 after a session, see README "Close codes"). */
  | { kind: 'close_when_idle' }
  /** Shutdown: wait for the session (the drain deadline at most), then close with 1001. */
  | { kind: 'drain_wait'; freezeBroadcast: boolean }
  /** Shutdown without a session: close after a short moment. */
  | { kind: 'close_soon' };

export interface Step {
  state: LifecycleState;
  effects: Effect[];
}

const RESUMED_ELSEWHERE = CLOSE.resumedElsewhere;
const GOING_AWAY = CLOSE.goingAway;

const ws = { variant: 'websocket' as const };

/** A recording is running (or waits for its client): it can be stopped, resumed elsewhere, handed over. */
export function isLive(s: LifecycleState): s is Extract<LifecycleState, { kind: 'running' | 'paused' | 'away' }> {
  return s.kind === 'running' || s.kind === 'paused' || s.kind === 'away';
}

/** No recording belongs to the socket: a start may begin (and an idle socket may be closed). */
export function isIdle(s: LifecycleState): boolean {
  return s.kind === 'connected' || s.kind === 'ended';
}

/** The state as clients see it (health `state`, start refusals): the names of protocol v1. */
export function publicState(s: LifecycleState): 'connected' | 'started' | 'paused' | 'stopping' {
  switch (s.kind) {
    case 'connected':
    case 'starting':
    case 'ended':
      return 'connected';
    case 'running':
      return 'started';
    case 'paused':
      return 'paused';
    case 'away':
      return s.paused ? 'paused' : 'started';
    case 'handing_off':
    case 'finishing':
      return 'stopping';
  }
}

const notStarted = (action: string) => new AppError('session_not_started', { ...ws, details: { action } });
const stay = (state: LifecycleState, ...effects: Effect[]): Step => ({ state, effects });
const draining = (s: LifecycleState) => ('draining' in s ? s.draining : false);
const finishing = (s: LifecycleState): LifecycleState => ({ kind: 'finishing', draining: draining(s), startWaiting: false });
const finalize = (finish: FinishKind = 'normal', why: EndedReason = 'ended'): Effect => ({ kind: 'finalize', finish, why });

export function step(s: LifecycleState, e: LifecycleEvent): Step {
  switch (e.kind) {
    case 'start':
      return onStart(s);
    case 'started':
      if (s.kind !== 'starting') return stay(s);
      // The client left while a resume was set up: the session waits for it again (a new grace).
      if (s.socketLost && e.resumed)
        return stay({ kind: 'away', paused: !!e.paused, draining: false }, { kind: 'keep_gap' }, { kind: 'arm_grace' });
      // The client left while the recording was set up: nothing was recorded; it ends at once.
      if (s.socketLost) return stay(finishing(s), { kind: 'broadcast_release' }, finalize());
      return stay(e.paused ? { kind: 'paused', draining: false } : { kind: 'running', draining: false });
    case 'start_failed':
      return s.kind === 'starting' ? stay({ kind: 'connected' }) : stay(s);
    case 'pause':
    case 'resume':
    case 'stop':
      return onControl(s, e.kind);
    case 'audio':
      if (s.kind === 'running') return stay(s, { kind: 'record_audio' });
      // Audio while paused is dropped (not recorded, not billed).
      if (s.kind === 'paused') return stay(s);
      return stay(s, {
        kind: 'send_error',
        error: new AppError('session_not_started', {
          ...ws,
          message: 'No recording is running: send start first.',
          details: { message_type: e.via === 'binary' ? 'binary' : 'voice-translation', action: 'audio' },
        }),
      });
    case 'socket_lost':
      return onSocketLost(s);
    case 'socket_attached':
      if (!isLive(s)) return stay(s, { kind: 'send_error', error: resumeRefused() });
      // The session continues on the new socket as it was (paused stays paused); an old socket still open is closed.
      return stay(
        pausedOf(s) ? { kind: 'paused', draining: false } : { kind: 'running', draining: false },
        { kind: 'cancel_grace' },
        { kind: 'silence', op: 'stop' },
        { kind: 'move_out' },
        { kind: 'close_socket', code: RESUMED_ELSEWHERE, reason: 'session resumed on another connection' },
      );
    case 'hand_over':
      if (!isLive(s)) return stay(s, { kind: 'send_error', error: resumeRefused() });
      return stay({ kind: 'handing_off' }, { kind: 'cancel_grace' }, { kind: 'silence', op: 'stop' }, { kind: 'park' });
    case 'handed_over':
      if (s.kind !== 'handing_off') return stay(s);
      return stay({ kind: 'ended' }, { kind: 'close_socket', code: RESUMED_ELSEWHERE, reason: 'session resumed on another connection' });
    case 'taken_away':
      if (!isLive(s)) return stay(s);
      return stay(
        { kind: 'ended' },
        { kind: 'cancel_grace' },
        { kind: 'silence', op: 'stop' },
        { kind: 'let_go' },
        { kind: 'close_socket', code: RESUMED_ELSEWHERE, reason: 'session taken over by another process' },
      );
    case 'end':
    case 'drain_deadline':
      return isLive(s) ? stay(finishing(s), finalize()) : stay(s);
    case 'grace_expired':
      return s.kind === 'away' ? stay(finishing(s), finalize('normal', 'grace_expired')) : stay(s);
    case 'silence_timeout':
      // Away, the silence count stops (spec stt_silence_timeout): only a connected session times out.
      if (s.kind !== 'running' && s.kind !== 'paused') return stay(s);
      return stay(
        finishing(s),
        {
          kind: 'send_error',
          error: new AppError('stt_silence_timeout', { ...ws, details: { silence_seconds: e.silenceSeconds } }),
        },
        finalize(),
      );
    case 'force_end':
      return onForceEnd(s, e.taskId);
    case 'drain':
      return onDrain(s);
    case 'finished':
      return onFinished(s);
  }
}

function pausedOf(s: Extract<LifecycleState, { kind: 'running' | 'paused' | 'away' }>): boolean {
  return s.kind === 'paused' || (s.kind === 'away' && s.paused);
}

function resumeRefused(): AppError {
  return new AppError('resume_unavailable', {
    ...ws,
    message: 'The session cannot be resumed (recording_ending).',
    details: { action: 'start', reason: 'recording_ending' },
  });
}

function onStart(s: LifecycleState): Step {
  if (isIdle(s)) return stay({ kind: 'starting', socketLost: false });
  // After a stop or an ending error the previous recording is still being finalized: the new
  // start waits, so the client sees `status: ended` and `task_complete` before `session_started`.
  if (s.kind === 'finishing' && !s.startWaiting) return stay({ ...s, startWaiting: true });
  return stay(s, {
    kind: 'send_error',
    error: new AppError('invalid_data', {
      ...ws,
      message: 'A recording is already running or finishing on this connection.',
      details: { message_type: 'voice-translation', action: 'start', state: publicState(s) },
    }),
  });
}

function onControl(s: LifecycleState, action: 'pause' | 'resume' | 'stop'): Step {
  if (s.kind !== 'running' && s.kind !== 'paused') return stay(s, { kind: 'send_error', error: notStarted(action) });
  if (action === 'stop') {
    return stay(finishing(s), { kind: 'broadcast_control', action }, { kind: 'publish_status', status: 'stopping' }, finalize());
  }
  if (action === 'resume' && s.kind === 'running') return stay(s, { kind: 'send_error', error: new AppError('session_not_paused', ws) });
  if (action === 'pause' && s.kind === 'paused') return stay(s, { kind: 'send_error', error: new AppError('session_already_paused', ws) });
  if (action === 'pause') {
    return stay(
      { kind: 'paused', draining: s.draining },
      { kind: 'broadcast_control', action },
      { kind: 'silence', op: 'pause' },
      { kind: 'publish_status', status: 'paused' },
    );
  }
  return stay(
    { kind: 'running', draining: s.draining },
    { kind: 'broadcast_control', action },
    { kind: 'silence', op: 'resume' },
    { kind: 'publish_status', status: 'started' },
  );
}

function onSocketLost(s: LifecycleState): Step {
  if (s.kind === 'starting') return stay({ ...s, socketLost: true });
  if (s.kind !== 'running' && s.kind !== 'paused') return stay(s);
  // What was recorded is finalized after the grace, not lost; the silence count stops meanwhile;
  // a broadcast waits for its host (frozen).
  return stay(
    { kind: 'away', paused: s.kind === 'paused', draining: s.draining },
    { kind: 'silence', op: 'pause' },
    { kind: 'broadcast_host_dropped' },
    { kind: 'keep_gap' },
    { kind: 'arm_grace' },
  );
}

function onForceEnd(s: LifecycleState, taskId: string): Step {
  const told: Effect = {
    kind: 'send_error',
    error: new AppError('session_force_ended', { ...ws, details: { task_id: taskId } }),
  };
  if (isLive(s)) return stay(finishing(s), told, { kind: 'cancel_grace' }, finalize('forced'));
  if (s.kind === 'finishing' || s.kind === 'handing_off') return stay(s, told);
  return stay(s);
}

function onDrain(s: LifecycleState): Step {
  const told: Effect = { kind: 'send_error', error: new AppError('service_shutdown', ws) };
  switch (s.kind) {
    case 'running':
    case 'paused':
      // A broadcast outlives this process: frozen now, its host can start it again on another node at once.
      return stay({ ...s, draining: true }, told, { kind: 'drain_wait', freezeBroadcast: true });
    case 'away':
      // Nobody to wait for: finalized now.
      return stay({ kind: 'finishing', draining: true, startWaiting: false }, told, { kind: 'cancel_grace' }, finalize(), {
        kind: 'drain_wait',
        freezeBroadcast: false,
      });
    case 'finishing':
      return stay({ ...s, draining: true }, told, { kind: 'drain_wait', freezeBroadcast: false });
    default:
      return stay(s, told, { kind: 'close_soon' });
  }
}

function onFinished(s: LifecycleState): Step {
  if (s.kind !== 'finishing') return stay(s);
  if (s.draining) return stay({ kind: 'ended' }, { kind: 'close_socket', code: GOING_AWAY, reason: 'service shutdown' });
  // The session ended well: the socket waits for another start, then closes normally (never 4008).
  if (s.startWaiting) return stay({ kind: 'starting', socketLost: false }, { kind: 'close_when_idle' });
  return stay({ kind: 'ended' }, { kind: 'close_when_idle' });
}
