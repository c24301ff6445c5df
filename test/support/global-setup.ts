/**
 * Once per test run, before any test file: bundle the server (scripts/build-server.mjs) so
 * every server process a test starts (test/support/server.ts) runs this checkout's sources,
 * as `npm start` does.
 */
// @ts-expect-error: a plain ES module script without type declarations
import { buildServer } from '../../scripts/build-server.mjs';

export default async function setup(): Promise<void> {
  await buildServer();
}
