/**
 * Stopping on SIGTERM/SIGINT so that the process always ends, within the grace period:
 * - the first signal starts a graceful close (in-flight requests finish, backends close);
 * - the grace timer is armed before anything else runs (nothing that logs or closes can
 *   keep it from being set), and exits with 1 when the close has not finished by then;
 * - a second signal exits at once (an operator's "I mean it");
 * - a watchdog thread kills the process (SIGKILL) shortly after the grace period, in case the
 *   main thread itself is stuck and can no longer run the timer or finish `process.exit()`
 *   (an exit handler that blocks, such as a logger flushing to a pipe nobody reads).
 * Exit codes: 0 after a complete graceful close, 1 when forced (grace over, second signal).
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

export interface ShutdownOptions {
  graceMs: number;
  logger: Logger;
  /** The graceful close (the app's close). */
  close(): Promise<void>;
  signals?: NodeJS.Signals[];
}

/** How long after the grace period the watchdog waits for a normal (forced) exit before killing. */
const WATCHDOG_SLACK_MS = 2000;

/**
 * Starts a graceful stop from inside the process (src/platform/process-guards.ts: after an
 * uncaught exception), as a signal would; the process then exits with `exitCode` (1 when
 * something broke) once closed. A second call, or a signal meanwhile, exits at once.
 */
export type StopProcess = (reason: string, exitCode: 0 | 1) => void;

export function installShutdown(options: ShutdownOptions): StopProcess {
  let stopping = false;
  const stop: StopProcess = (reason, exitCode) => {
    if (stopping) {
      safeLog(() => options.logger.warn({ reason }, 'second signal or stop request: exiting now'));
      process.exit(1);
    }
    stopping = true;
    const force = setTimeout(() => {
      safeLog(() => options.logger.warn({ graceMs: options.graceMs }, 'shutdown grace period over; exiting'));
      process.exit(1);
    }, options.graceMs);
    force.unref();
    startWatchdog(options.graceMs + WATCHDOG_SLACK_MS);
    safeLog(() => options.logger.info({ reason }, 'shutting down: finishing in-flight requests'));
    options.close().then(
      () => {
        safeLog(() => options.logger.info('stopped'));
        process.exit(exitCode);
      },
      (err: unknown) => {
        safeLog(() => options.logger.error({ err }, 'shutdown failed'));
        process.exit(1);
      },
    );
  };
  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) process.on(signal, (s: NodeJS.Signals) => stop(`signal ${s}`, 0));
  return stop;
}

/** Logging must never stop a shutdown (the logger's output may be what broke). */
function safeLog(write: () => void): void {
  try {
    write();
  } catch {
    // nothing to tell, and nobody to tell it to
  }
}

/**
 * A thread of its own, so it runs even when the main thread is blocked. Unreferenced: it
 * never keeps a process that is done alive.
 */
function startWatchdog(afterMs: number): void {
  try {
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.afterMs);`,
      { eval: true, workerData: { pid: process.pid, afterMs } },
    );
    worker.unref();
    worker.on('error', () => {});
  } catch {
    // without threads the grace timer alone bounds the exit
  }
}
