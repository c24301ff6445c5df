import { writeSync } from 'node:fs';

/**
 * Where log lines go: synchronous writes to a file descriptor (stdout by default) that can
 * never hang the process or throw into it.
 *
 * Why not pino's default destination (sonic-boom): when the reader of stdout goes away (a
 * parent that piped our output and exited), every write fails with EPIPE, and sonic-boom's
 * exit-time `flushSync` retries the unwritten buffer forever, so `process.exit()` never
 * returns: the server stopped listening on SIGTERM but lived on (issue 19). Here:
 * - a broken descriptor (EPIPE, EBADF, any error but "try again") turns logging off for
 *   good: there is nobody left to read it;
 * - a full pipe (EAGAIN: the reader is slow) is waited for at most `blockedWaitMs` per line;
 *   while it stays full, further lines are dropped without waiting, and how many were lost
 *   is written once the pipe drains.
 */
export interface LogDestination {
  write(line: string): void;
  /** Lines dropped because the descriptor was full; logging off once broken. */
  readonly state: { dropped: number; broken: boolean };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function fdDestination(fd = 1, blockedWaitMs = 100): LogDestination {
  const state = { dropped: 0, broken: false };
  let congested = false;

  /** Writes all of `bytes`; false when the descriptor stayed full (or broke). */
  const writeAll = (bytes: Buffer, mayWait: boolean): boolean => {
    let offset = 0;
    let waited = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(fd, bytes, offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EBUSY') {
          state.broken = true;
          return false;
        }
        if (!mayWait || waited >= blockedWaitMs) return false;
        sleepSync(5);
        waited += 5;
      }
    }
    return true;
  };

  return {
    state,
    write(line: string) {
      if (state.broken) return;
      if (congested && state.dropped > 0) {
        // Announce the gap first (once the pipe takes it), so readers know lines are missing.
        const note = `${JSON.stringify({ level: 40, time: new Date().toISOString(), service: 'parley', msg: 'log lines dropped: output was blocked', dropped: state.dropped })}\n`;
        if (!writeAll(Buffer.from(note), false)) {
          state.dropped++;
          return;
        }
        state.dropped = 0;
      }
      congested = !writeAll(Buffer.from(line), !congested);
      if (congested && !state.broken) state.dropped++;
    },
  };
}
