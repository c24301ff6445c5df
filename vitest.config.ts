import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

/**
 * Test files share their fork's loaded modules (isolate: false) instead of each loading the app
 * again in a fresh process: 38 of the REST suites' files ran in 54 s instead of 107 s (module
 * loading 11 s instead of 58 s). What a file leaves in memory stays until its fork is replaced,
 * though (the whole suite in two forks grew them to 9 and 11 GB), so the files run in groups of
 * 20-50 (the projects below) and vitest starts fresh forks between groups. Every test builds its
 * own app, database and servers and closes them; a test that sets an environment variable
 * restores it.
 */
const GROUPS: Record<string, string[]> = {
  processes: ['test/crash', 'test/scale', 'test/broadcasts'],
  realtime: ['test/realtime'],
  engines: ['test/engines'],
  platform: ['test/platform', 'test/webhooks', 'test/cli', 'test/fuzz'],
  media: ['test/imports', 'test/web', 'test/tasks', 'test/stream', 'test/tts', 'test/summaries', 'test/subtitles'],
};
const ALL = 'test/**/*.test.ts';

export default defineConfig({
  test: {
    include: [],
    // Every response a test app sends is checked against its route's declared schema.
    setupFiles: ['./test/support/contract-setup.ts'],
    // The server bundle the tests' server processes run (dist/main.mjs), built from these sources.
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: engine tests are CPU-bound, keep parallelism modest.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    projects: [
      ...Object.entries(GROUPS).map(([name, dirs]) => ({
        extends: true as const,
        test: { name, include: dirs.map((d) => `${d}/**/*.test.ts`) },
      })),
      {
        extends: true as const,
        test: {
          name: 'rest',
          include: [ALL],
          exclude: Object.values(GROUPS)
            .flat()
            .map((d) => `${d}/**`),
        },
      },
    ],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Known slow files first (test/support/slow-files.txt): no long file is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
  },
});
