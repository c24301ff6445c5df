/**
 * The live sessions of this process and the sockets attached to them. A session outlives its
 * socket: a resume attaches the new socket to the session its token names (the old socket, if
 * still open, is closed with 4010 and forgets it); a hand-over to another process detaches the
 * session from this process (handover.ts).
 */
import type { LiveSession } from './session.js';
import type { SessionSocket } from './socket.js';
import { welcome } from './welcome.js';

export class SessionRegistry {
  constructor(
    /** Every session of this process: those of open sockets and those waiting for their client. */
    private readonly sessions: () => Iterable<LiveSession>,
  ) {}

  all(): LiveSession[] {
    return [...this.sessions()];
  }

  /** The session whose recording has this resume token. */
  byToken(token: string): LiveSession | undefined {
    return this.all().find((s) => s.resumeToken === token);
  }

  /** The sessions recording this task (force-fail). */
  byTask(taskId: string): LiveSession[] {
    return this.all().filter((s) => s.taskId === taskId);
  }

  /** A resume: `socket` takes `session` over, as it was (running or paused), with the events it missed. */
  attach(session: LiveSession, socket: SessionSocket): void {
    const rec = session.recording;
    if (!rec) return;
    // Stops the grace and the silence watch; a previous socket still open is closed with 4010.
    const gap = session.takeOver(socket);
    welcome(session, rec, gap);
    // The new client left during its resume: the session waits for it again.
    if (socket.gone) session.socketLost();
  }
}
