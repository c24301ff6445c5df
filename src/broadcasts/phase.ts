/**
 * The broadcast's phase as its viewers see it (spec "Broadcast phase and flow"), as a pure
 * function of the host's actions. The host's recording has its own state (started, paused:
 * src/realtime/session/lifecycle.ts); the broadcast adds the phase (standby: only the host sees results;
 * live: viewers do), whether the host is connected (a drop freezes the broadcast), and the
 * end. Each step returns the next state and the events every viewer is sent, in order.
 */
import { AppError } from '../platform/errors/app-error.js';

export type Phase = 'standby' | 'live';

export interface BroadcastState {
  phase: Phase;
  /** The host paused the recording (viewers of a live broadcast were told `paused`). */
  paused: boolean;
  /** False between a host connection drop and its return: frozen. */
  hostConnected: boolean;
  ended: boolean;
}

export type HostAction =
  | { kind: 'go_live' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'stop' }
  | { kind: 'host_dropped' }
  | { kind: 'host_returned' };

/** What viewers are sent for a step (payloads are completed by the sender: messages, translations). */
export type ViewerSignal =
  | { event: 'phase_changed'; phase: 'live' }
  | { event: 'recording_started' }
  | { event: 'paused' }
  | { event: 'resumed' }
  | { event: 'ended' }
  | { event: 'host_disconnected' }
  | { event: 'host_reconnected'; resumed: boolean; phase: Phase };

export type Step = { state: BroadcastState; signals: ViewerSignal[] } | { error: AppError };

export function initialState(phase: Phase): BroadcastState {
  return { phase, paused: false, hostConnected: true, ended: false };
}

/** Viewers see captions only now. */
export function captionsFlow(s: BroadcastState): boolean {
  return s.phase === 'live' && !s.paused && s.hostConnected && !s.ended;
}

const ws = { variant: 'websocket' as const };

export function step(s: BroadcastState, action: HostAction): Step {
  if (s.ended) return { error: new AppError('session_not_started', { ...ws, details: { action: action.kind } }) };
  switch (action.kind) {
    case 'go_live':
      if (s.phase === 'live') {
        return {
          error: new AppError('invalid_data', {
            ...ws,
            message: 'The broadcast is already live.',
            details: { action: 'broadcast_go_live', phase: 'live' },
          }),
        };
      }
      // Viewers start from a clean page; their start_time counts from here.
      return {
        state: { ...s, phase: 'live' },
        signals: [
          { event: 'phase_changed', phase: 'live' },
          { event: 'recording_started' },
          ...(s.paused ? [{ event: 'paused' } as const] : []),
        ],
      };
    case 'pause':
      return { state: { ...s, paused: true }, signals: s.phase === 'live' ? [{ event: 'paused' }] : [] };
    case 'resume':
      return { state: { ...s, paused: false }, signals: s.phase === 'live' ? [{ event: 'resumed' }] : [] };
    case 'stop':
      return { state: { ...s, ended: true }, signals: [{ event: 'ended' }] };
    case 'host_dropped':
      if (!s.hostConnected) return { state: s, signals: [] };
      return { state: { ...s, hostConnected: false }, signals: [{ event: 'host_disconnected' }] };
    case 'host_returned':
      if (s.hostConnected) return { state: s, signals: [] };
      // A returning host starts a new recording (not paused), in the phase the broadcast had.
      // Live: its sentences are numbered from 1 again, so viewers clear the old captions.
      return {
        state: { ...s, hostConnected: true, paused: false },
        signals: [
          { event: 'host_reconnected', resumed: true, phase: s.phase },
          ...(s.phase === 'live' ? [{ event: 'recording_started' } as const] : []),
        ],
      };
  }
}
