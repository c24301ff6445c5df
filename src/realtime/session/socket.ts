/**
 * What a live session needs of the socket it is attached to (src/realtime/connection.ts). A
 * session outlives its socket: while the client is away it holds `NO_SOCKET`, and a resume
 * attaches the new socket (session/registry.ts).
 */
import type { AppError } from '../../platform/errors/app-error.js';
import { isInterim, type SessionEvent } from '../../stream/events.js';
import { ownerMessage } from '../protocol.js';

export interface SessionSocket {
  /** Queued for the client (interims may be dropped by a slow client's outbox). */
  send(text: string, interim?: boolean): void;
  sendError(err: AppError): void;
  close(code: number, reason: string): void;
  /** The socket closed: nothing more reaches the client. */
  readonly gone: boolean;
  /** The session ended well: wait for another start, then close with 1000 (README "Close codes"). */
  closeWhenIdle(): void;
  /** A recording runs: no idle close. */
  stopIdleClose(): void;
  /** Resolves once the socket closed, or after `ms`. */
  closedWithin(ms: number): Promise<void>;
  /** The session moved to another socket (a resume): this one forgets it. */
  released(): void;
}

/** Where a session's messages go while no socket is attached (the client is away). */
export const NO_SOCKET: SessionSocket = {
  send: () => {},
  sendError: () => {},
  close: () => {},
  gone: true,
  closeWhenIdle: () => {},
  stopIdleClose: () => {},
  closedWithin: async () => {},
  released: () => {},
};

/** A session event to a socket as the spec frames it (interims may be dropped for a slow client). */
export function sendSessionEvent(socket: SessionSocket, e: SessionEvent, droppable = isInterim(e)): void {
  const frame = ownerMessage(e);
  if (frame) socket.send(frame, droppable);
}
