/**
 * A process that stops through `installShutdown` with a close that never finishes and an
 * exit handler that never returns (what pino's sonic-boom destination did before issue 19:
 * its exit-time flush retried writing to a stdout nobody read, forever). Prints "ready" when
 * its handlers are installed. Only the watchdog thread can end it.
 */
import pino from 'pino';
import { installShutdown } from '../../src/platform/shutdown.js';

const logger = pino({ level: 'silent' });
installShutdown({ graceMs: Number(process.env.GRACE_MS ?? 1000), logger, close: () => new Promise(() => {}) });
process.on('exit', () => {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0, 100);
});
setInterval(() => {}, 1000); // a server's open handles
process.stdout.write('ready\n');
