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
    hookTimeout: 60_000,
    // Two cores: engine tests are CPU-bound, keep parallelism modest.
    pool: 'forks',
    // Workers are reused from file to file (isolate: false): each file still gets its own
    // copy of the project's modules (vitest resets them between files), but node_modules,
    // Node's start-up and the worker process are paid once per worker instead of once per file
    // (about a second of CPU for each of 250 files; docs/benchmarks.md, "CI time (session 22)").
    // Nothing in the suite mocks modules, and the few tests that set process.env put it back.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Known slow files first (test/support/slow-files.txt): no long file is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
  },
});
