import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every response a test app sends is checked against its route's declared schema.
    setupFiles: ['./test/support/contract-setup.ts'],
    // The server bundle the tests' server processes run (dist/main.mjs), built from these sources.
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 30_000,
    // A failed test runs once more before it fails the run: a test whose timing loses to a
    // loaded machine (three workers on two cores) must not throw away a CI run of 25 minutes.
    // One that passes only on its retry is named by the summary reporter above the closing
    // line, and is a flaky test to fix (CONTRIBUTING.md, "Flaky tests"); one that fails twice
    // fails the run.
    retry: 1,
    hookTimeout: 60_000,
    pool: 'forks',
    // A fresh worker for each file (vitest's default, kept on purpose): with workers reused
    // (isolate: false) a CI run's two workers grew to 10-11 GB each, from what files leave
    // behind, and the run was slower, not faster (docs/benchmarks.md, "CI time (session 22)").
    // Three workers on these two cores: many files wait on the clock (audio paced in real time,
    // retries, heartbeats), so with two workers the cores were 80 % busy over a CI run; with
    // three, 92 %, and vitest took 1,294 s against 1,539 s (CI pre-checks on one machine:
    // docs/benchmarks.md, "CI time (session 23)"). A test's time bounds must hold with a core
    // shared three ways.
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Known slow files first (test/support/slow-files.txt): no long file is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
  },
});
