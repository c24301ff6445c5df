/**
 * A process with the guards of src/main.ts (src/platform/process-guards.ts) and a stop that
 * reports instead of closing an app: `reject` leaves a promise rejection unhandled, `throw`
 * throws from a timer. It prints what happened, then "alive" a moment later if it still runs.
 */
import pino from 'pino';
import { installProcessGuards } from '../../src/platform/process-guards.js';

const logger = pino({ level: 'info' });
installProcessGuards(logger, (reason, exitCode) => {
  process.stdout.write(`stop ${reason} ${exitCode}\n`);
  process.exit(exitCode);
});
if (process.argv[2] === 'reject') void Promise.reject(new Error('background work failed'));
if (process.argv[2] === 'throw')
  setTimeout(() => {
    throw new Error('a callback broke');
  }, 10);
setTimeout(() => {
  process.stdout.write('alive\n');
  process.exit(0);
}, 300);
