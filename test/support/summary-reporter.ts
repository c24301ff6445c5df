import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes the plain closing line "N passed, N failed, N skipped" that CI reads; scripts/test.sh
 * prints it last (PARLEY_TEST_SUMMARY_FILE), or it goes to stdout when no file is given.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
    }
    const line = `${passed} passed, ${failed} failed, ${skipped} skipped\n`;
    const file = process.env.PARLEY_TEST_SUMMARY_FILE;
    if (file) writeFileSync(file, line);
    else process.stdout.write(`\n${line}`);
  }
}
