/**
 * A resumed session greets its new socket: `resume_ok`, then the session events the client
 * missed while away, then live events, in order. The silence count starts again (time away is
 * not counted).
 */
import type { SessionEvent } from '../../stream/events.js';
import type { Recording } from '../recording.js';
import { publicState } from './lifecycle.js';
import type { LiveSession } from './session.js';
import { sendSessionEvent } from './socket.js';

export function welcome(session: LiveSession, rec: Recording, gap: SessionEvent[]): void {
  session.socket.stopIdleClose();
  // Paused, or the client already left again (away): the count stands still (session.watch).
  session.watch(rec.start.silenceTimeoutSeconds);
  session.emit('resume_ok', {
    session_id: rec.sessionId,
    task_id: rec.taskId,
    recording_type: rec.start.type,
    recognition_mode: rec.start.recognitionMode,
    status: publicState(session.life),
    // Audio received so far: the client sends what it captured after this point.
    received_ms: rec.durationMs,
    missed_events: gap.length,
    message: 'Recording resumed.',
    // The grace of the next drop, as session_started said (this process's setting).
    resume_grace_seconds: session.deps.limits.disconnectGraceMs / 1000,
  });
  for (const e of gap) sendSessionEvent(session.socket, e, false);
  session.subscribe(rec);
}
