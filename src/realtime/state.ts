/**
 * The session state machine of one connection, as data. A connection can run several
 * recordings one after another: `ended` (the previous recording is processing) returns to
 * `connected` once processing finished, and only then does a new `start` get
 * `session_started`.
 */
import { AppError } from '../platform/errors/app-error.js';

export type SessionState =
  | { kind: 'connected' }
  | { kind: 'started'; sessionId: string; taskId: string }
  | { kind: 'paused'; sessionId: string; taskId: string }
  | { kind: 'stopping'; sessionId: string; taskId: string }
  | { kind: 'ended'; taskId: string };

export type ControlAction = 'pause' | 'resume' | 'stop' | 'audio';

/** The next state for a control action, or the AppError the client is sent (state unchanged). */
export function transition(state: SessionState, action: ControlAction): SessionState | AppError {
  const ws = { variant: 'websocket' as const };
  switch (state.kind) {
    case 'connected':
    case 'ended':
    case 'stopping':
      return new AppError('session_not_started', { ...ws, details: { action } });
    case 'started':
      if (action === 'resume') return new AppError('session_not_paused', ws);
      if (action === 'pause') return { ...state, kind: 'paused' };
      if (action === 'stop') return { ...state, kind: 'stopping' };
      return state;
    case 'paused':
      if (action === 'pause') return new AppError('session_already_paused', ws);
      if (action === 'resume') return { ...state, kind: 'started' };
      if (action === 'stop') return { ...state, kind: 'stopping' };
      return state; // audio while paused is dropped (not recorded, not billed)
  }
}
