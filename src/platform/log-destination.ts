import { writeSync } from 'node:fs';

/**
 * Where log lines go: writes to a file descriptor (stdout by default) that can never hang the
 * process or throw into it.
 *
 * Why not pino's default destination (sonic-boom): when the reader of stdout goes away (a
 * parent that piped our output and exited), every write fails with EPIPE, and sonic-boom's
 * exit-time `flushSync` retries the unwritten buffer forever, so `process.exit()` never
 * returns: the server stopped listening on SIGTERM but lived on (issue 19). Here:
 * - lines written in one turn of the event loop go out together in one write, right after
 *   it (setImmediate; at once past 64 KiB; and synchronously when the process exits), not
 *   one system call per line: logging is on every request's path;
 * - a broken descriptor (EPIPE, EBADF, any error but "try again") turns logging off for
 *   good: there is nobody left to read it;
 * - a full pipe (EAGAIN: the reader is slow) is waited for at most `blockedWaitMs` per batch;
 *   while it stays full, further lines are dropped without waiting, and how many were lost
 *   is written once the pipe drains.
 */
export interface LogDestination {
  write(line: string): void;
  /** Writes what is pending now (the exit handler calls it). */
  flush(): void;
  /** Lines dropped because the descriptor was full; logging off once broken. */
  readonly state: { dropped: number; broken: boolean };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

const FLUSH_AT_BYTES = 64 * 1024;

/** Every destination with lines pending, flushed when the process exits (one listener for all). */
const pendingAtExit = new Set<LogDestination>();
let exitHandlerInstalled = false;
function flushOnExit(d: LogDestination): void {
  pendingAtExit.add(d);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.once('exit', () => {
    for (const p of pendingAtExit) p.flush();
  });
}

export function fdDestination(fd = 1, blockedWaitMs = 100): LogDestination {
  const state = { dropped: 0, broken: false };
  let congested = false;
  let pending: string[] = [];
  let pendingLines = 0;
  let pendingBytes = 0;
  let scheduled = false;
  /** A batch was cut inside a line: the next write starts on a new line. */
  let cutMidLine = false;

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
        if (!mayWait || waited >= blockedWaitMs) {
          if (offset > 0) cutMidLine = true;
          return false;
        }
        sleepSync(5);
        waited += 5;
      }
    }
    return true;
  };

  const destination: LogDestination = {
    state,
    write(line: string) {
      if (state.broken) return;
      pending.push(line);
      pendingLines++;
      pendingBytes += line.length;
      if (pendingBytes >= FLUSH_AT_BYTES) destination.flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(destination.flush).unref?.();
        flushOnExit(destination);
      }
    },
    flush() {
      scheduled = false;
      if (pendingLines === 0) return;
      const text = pending.join('');
      const lines = pendingLines;
      pending = [];
      pendingLines = 0;
      pendingBytes = 0;
      if (state.broken) return;
      if (congested && state.dropped > 0) {
        // Announce the gap first (once the pipe takes it), so readers know lines are missing.
        const note = `${cutMidLine ? '\n' : ''}${JSON.stringify({ level: 40, time: new Date().toISOString(), service: 'parley', msg: 'log lines dropped: output was blocked', dropped: state.dropped })}\n`;
        cutMidLine = false;
        if (!writeAll(Buffer.from(note), false)) {
          state.dropped += lines;
          return;
        }
        state.dropped = 0;
      }
      congested = !writeAll(Buffer.from(text), !congested);
      if (congested && !state.broken) state.dropped += lines;
    },
  };
  return destination;
}
