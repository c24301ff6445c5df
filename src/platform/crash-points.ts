/**
 * Named points where the crash suites (test/crash/) stop a real server process before they
 * kill it with SIGKILL, so "kill -9 while charging" is a deterministic place, not a race.
 * Production never sets PARLEY_TEST_PAUSE_AT: `crashPoint` is then a comparison with an empty
 * string. When it names the point, the process writes `PARLEY_PAUSED <name>` to stderr and
 * never returns from it (the test kills it there). Points: docs/crash-safety.md.
 */
const pauseAt = process.env.PARLEY_TEST_PAUSE_AT ?? '';

export function crashPoint(name: string): Promise<void> | undefined {
  if (pauseAt === '' || pauseAt !== name) return undefined;
  process.stderr.write(`PARLEY_PAUSED ${name}\n`);
  return new Promise(() => {});
}

const faultAt = process.env.PARLEY_TEST_FAULT_AT ?? '';

/**
 * A bug on demand: throws when PARLEY_TEST_FAULT_AT names the point, so a test can show that
 * an unexpected exception in one place (one WebSocket message's handler: `ws.action.<action>`)
 * costs that message, never the process. Production never sets it.
 */
export function faultPoint(name: string): void {
  if (faultAt !== '' && faultAt === name) throw new Error(`PARLEY_TEST_FAULT_AT ${name}`);
}
