/**
 * The API fuzzer from the command line: `npm run fuzz -- --seed 7 --rest 2000 --ws 400`.
 * Seeds a fresh data folder, starts the server as a child process, walks every REST operation
 * of /api/v1/openapi.json and every WebSocket action with generated bad input, and prints each
 * 5xx, hang (no answer within 5 s) and crash with what was sent. Exit code 1 on any finding.
 * The same run, bounded, is a test: test/fuzz/fuzz.test.ts.
 */
import { formatReport, runFuzz } from '../test/fuzz/harness.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} takes a whole number`);
  return v;
}

const report = await runFuzz({
  seed: arg('seed', Date.now() % 1_000_000),
  restCases: arg('rest', 1000),
  wsCases: arg('ws', 200),
  deadlineMs: arg('deadline-ms', 5000),
  trace: process.argv.includes('--trace') ? process.argv[process.argv.indexOf('--trace') + 1] : undefined,
  log: (l) => process.stderr.write(`${l}\n`),
});
process.stdout.write(`${formatReport(report)}\n`);
if (process.argv.includes('--by-operation')) {
  for (const [op, counts] of Object.entries(report.byOperation).sort()) {
    const line = Object.entries(counts)
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ');
    process.stdout.write(`  ${op}: ${line}\n`);
  }
}
process.exit(report.findings.length || report.errorLogs.length ? 1 : 0);
