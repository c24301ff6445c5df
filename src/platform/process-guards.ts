/**
 * What the process does with an error nobody caught (src/main.ts installs it).
 *
 * - An unhandled promise rejection is logged at error level and the process goes on. The
 *   rejected promise was a piece of background work that nobody awaited (a hand-off, a
 *   notification); the code that started it already ran to its end, so no invariant was left
 *   half-done, and exiting (Node's default) would cut every live session, broadcast and
 *   request for the failure of one of them.
 * - An uncaught exception is logged at fatal level and starts the graceful stop, exiting
 *   with 1 when closed (a supervisor restarts the process). A synchronous throw that reached
 *   the event loop stopped some callback in the middle, so this process's state can no longer
 *   be trusted; a graceful stop still tells live clients `service_shutdown` (they resume on
 *   another process), finalizes recordings and finishes requests, which an abrupt exit would
 *   not. Errors of one request or one WebSocket message never get here: they are answered
 *   where they happen (src/platform/http/errors.ts, src/realtime/connection.ts `guarded`).
 */
import type { Logger } from 'pino';
import type { StopProcess } from './shutdown.js';

export function installProcessGuards(logger: Logger, stop: StopProcess): void {
  process.on('unhandledRejection', (reason) => {
    try {
      logger.error({ err: reason }, 'unhandled promise rejection (the process goes on)');
    } catch {
      // the logger itself failed: nothing else to report it to
    }
  });
  process.on('uncaughtException', (err, origin) => {
    try {
      logger.fatal({ err, origin }, 'uncaught exception: stopping gracefully');
    } catch {
      // as above
    }
    stop('uncaught exception', 1);
  });
}
