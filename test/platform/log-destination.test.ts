/**
 * The log destination never hangs or throws (issue 19), on a real pipe (a FIFO): a reader
 * that went away turns logging off; a full pipe costs a bounded wait, then lines are dropped
 * and counted, and the count is written once the pipe drains.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fdDestination } from '../../src/platform/log-destination.js';

const open: number[] = [];
afterEach(() => {
  for (const fd of open.splice(0)) closeSync(fd);
});

function fifo(): { readFd: number; writeFd: number } {
  const path = join(mkdtempSync(join(tmpdir(), 'parley-log-')), 'pipe');
  execFileSync('mkfifo', [path]);
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  open.push(writeFd);
  return { readFd, writeFd };
}

function drain(fd: number): string {
  const buf = Buffer.alloc(1 << 16);
  let out = '';
  for (;;) {
    try {
      const n = readSync(fd, buf);
      if (n <= 0) return out;
      out += buf.subarray(0, n).toString();
    } catch {
      return out; // EAGAIN: empty
    }
  }
}

const line = (i: number) => `${JSON.stringify({ msg: 'line', i, pad: 'x'.repeat(1000) })}\n`;

describe('fdDestination', () => {
  it('lines written together go out together, in order, after the current turn', async () => {
    const { readFd, writeFd } = fifo();
    open.push(readFd);
    const d = fdDestination(writeFd);
    d.write('{"a":1}\n');
    d.write('{"a":2}\n');
    expect(drain(readFd)).toBe('');
    await new Promise((r) => setImmediate(r));
    expect(drain(readFd)).toBe('{"a":1}\n{"a":2}\n');
  });

  it('a full pipe: lines are dropped and counted (no hang, no throw); the count is written when it drains', () => {
    const { readFd, writeFd } = fifo();
    open.push(readFd);
    const d = fdDestination(writeFd, 20);
    // Far more than a pipe holds (64 KiB on Linux), in batches as an event loop would send them.
    for (let batch = 0; batch < 10; batch++) {
      for (let i = 0; i < 50; i++) d.write(line(batch * 50 + i));
      d.flush();
    }
    expect(d.state.broken).toBe(false);
    expect(d.state.dropped).toBeGreaterThan(0);
    const dropped = d.state.dropped;
    const first = drain(readFd);
    expect(first.length).toBeGreaterThan(0);
    d.write('{"msg":"after"}\n');
    d.flush();
    const lines = drain(readFd).trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, msg: 'log lines dropped: output was blocked', dropped });
    expect(lines[1]).toBe('{"msg":"after"}');
    expect(d.state.dropped).toBe(0);
  });

  it('a reader that went away (EPIPE): logging stops, nothing is thrown', () => {
    const { readFd, writeFd } = fifo();
    closeSync(readFd);
    const d = fdDestination(writeFd);
    d.write(line(1));
    expect(() => d.flush()).not.toThrow();
    expect(d.state.broken).toBe(true);
    d.write(line(2));
    expect(() => d.flush()).not.toThrow();
  });
});
