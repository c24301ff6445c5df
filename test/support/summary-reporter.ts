import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes the plain closing line "N passed, N failed, N skipped" that CI reads; scripts/test.sh
 * prints it last (PARLEY_TEST_SUMMARY_FILE), or it goes to stdout when no file is given.
 * Before it, the slowest files (import, setup and tests), so a CI log shows where its time goes
 * (the target is a CI run under 30 minutes). PARLEY_TEST_DURATIONS_FILE=F writes every file's time to F.
 * Tests that passed only on their retry (vitest.config.ts, `retry`) are named above the line:
 * each is a flaky test to fix (CONTRIBUTING.md, "Flaky tests").
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const flaky: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed' && t.diagnostic()?.flaky) flaky.push(`  ${relative(process.cwd(), m.moduleId)} > ${t.fullName}`);
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
    }
    const byTime = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: relative(process.cwd(), m.moduleId), ms: d.collectDuration + d.setupDuration + d.duration };
      })
      .sort((a, b) => b.ms - a.ms);
    // Every file's time, for keeping test/support/slow-files.txt true (not only the top of the table).
    const everyFile = process.env.PARLEY_TEST_DURATIONS_FILE;
    if (everyFile) writeFileSync(everyFile, byTime.map((s) => `${Math.round(s.ms)}\t${s.file}`).join('\n') + '\n');
    const slowest = byTime.slice(0, 15);
    const table = slowest.map((s) => `${(s.ms / 1000).toFixed(1).padStart(7)} s  ${s.file}`).join('\n');
    const line = `${passed} passed, ${failed} failed, ${skipped} skipped\n`;
    const file = process.env.PARLEY_TEST_SUMMARY_FILE;
    const retried = flaky.length ? `passed only on a retry (flaky: fix them):\n${flaky.join('\n')}\n` : '';
    const text = `slowest test files:\n${table}\n${retried}${line}`;
    if (file) writeFileSync(file, text);
    else process.stdout.write(`\n${text}`);
  }
}
