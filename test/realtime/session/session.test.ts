/**
 * A live session without a recording, through its socket port: what its lifecycle's effects
 * do to the socket (errors sent, the drain's close), and what the registry finds of it. The
 * recording paths (start, resume, hand-over) run against real sockets in test/realtime/*.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../../src/platform/errors/app-error.js';
import { DEFAULT_LIMITS } from '../../../src/realtime/limits.js';
import type { RealtimePorts } from '../../../src/realtime/ports.js';
import { SessionRegistry } from '../../../src/realtime/session/registry.js';
import { LiveSession } from '../../../src/realtime/session/session.js';
import type { SessionSocket } from '../../../src/realtime/session/socket.js';

/** A socket port that records what the session did to it. */
function recordingSocket() {
  const seen = { errors: [] as AppError[], closed: [] as [number, string][], idleArmed: 0, released: 0 };
  let gone = false;
  const socket: SessionSocket = {
    send: () => {},
    sendError: (err) => seen.errors.push(err),
    close: (code, reason) => {
      seen.closed.push([code, reason]);
      gone = true;
    },
    get gone() {
      return gone;
    },
    closeWhenIdle: () => {
      seen.idleArmed++;
    },
    stopIdleClose: () => {},
    closedWithin: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 20))),
    released: () => {
      seen.released++;
    },
  };
  return { socket, seen };
}

function session(socket: SessionSocket): LiveSession {
  // No recording begins in these tests: the ports are never reached.
  const ports = {} as RealtimePorts;
  return new LiveSession(
    { principal: { keyId: 'k1', accountId: 'a1' } as never, ports, limits: DEFAULT_LIMITS, logger: pino({ level: 'silent' }) },
    socket,
  );
}

/** The same session, holding a resume token as a started recording would have given it. */
function withToken(s: LiveSession, token: string): LiveSession {
  class Holding extends LiveSession {
    constructor() {
      super(s.deps, s.socket);
      this.token = token;
    }
  }
  return new Holding();
}

describe('LiveSession without a recording', () => {
  it('audio and control actions before a start are refused with session_not_started, the session stays connected', () => {
    const { socket, seen } = recordingSocket();
    const s = session(socket);
    expect(s.audio('binary')).toBe('refused');
    s.drive({ kind: 'pause' });
    s.drive({ kind: 'stop' });
    expect(seen.errors.map((e) => [e.code, e.details])).toEqual([
      ['session_not_started', { message_type: 'binary', action: 'audio' }],
      ['session_not_started', { action: 'pause' }],
      ['session_not_started', { action: 'stop' }],
    ]);
    expect(s.life).toEqual({ kind: 'connected' });
    expect(s.idle).toBe(true);
  });

  it('a drain tells the client service_shutdown and closes the socket with 1001', async () => {
    const { socket, seen } = recordingSocket();
    const s = session(socket);
    await s.drain();
    expect(seen.errors.map((e) => e.code)).toEqual(['service_shutdown']);
    expect(seen.closed).toEqual([[1001, 'service shutdown']]);
  });

  it('a lost socket leaves nothing to wait for; force-end without a recording does nothing', async () => {
    const { socket, seen } = recordingSocket();
    const s = session(socket);
    s.socketLost();
    s.forceEnd();
    await s.settled();
    expect(s.socket.gone).toBe(true);
    expect(seen.errors).toEqual([]);
    expect(s.resumeRefusal()).toBe('recording_ending');
  });

  it('the registry finds sessions by resume token and task only while they have them', () => {
    const a = session(recordingSocket().socket);
    // The token is the session's own (set when its recording starts): a session that holds one, without a recording.
    const b = withToken(session(recordingSocket().socket), 'tok-b');
    const registry = new SessionRegistry(() => [a, b]);
    expect(registry.byToken('tok-b')).toBe(b);
    expect(registry.byToken('tok-a')).toBeUndefined();
    expect(registry.byTask('task-1')).toEqual([]);
    expect(registry.all()).toEqual([a, b]);
  });
});
