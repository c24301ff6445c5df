/**
 * Engine benchmark for the engines configured on this machine.
 *
 *   npm run -s bench:engines             # print every row
 *   npm run -s bench:engines -- --check  # exit 1 when a row misses its target
 *
 * Sections live in bench/engines/*.ts, each exporting `run(): Promise<BenchRow[]>`
 * (speech.ts: recognition, streaming, diarization; other sections add translation and TTS).
 * A section that throws is reported as a failed row rather than hiding the others.
 */
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './engines/types.js';

const SECTIONS_DIR = join(import.meta.dirname, 'engines');

function format(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const files = readdirSync(SECTIONS_DIR)
    .filter((f) => f.endsWith('.ts') && f !== 'types.ts' && !f.endsWith('.d.ts'))
    .sort((a, b) => (a === 'speech.ts' ? -1 : b === 'speech.ts' ? 1 : a.localeCompare(b)));
  const rows: BenchRow[] = [];
  for (const f of files) {
    const t0 = performance.now();
    try {
      const mod = (await import(join(SECTIONS_DIR, f))) as { run?: () => Promise<BenchRow[]> };
      if (typeof mod.run !== 'function') continue;
      const got = await mod.run();
      rows.push(...got);
      console.error(`[${f}] ${got.length} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (err) {
      rows.push({
        name: `${f}: section failed (${err instanceof Error ? err.message : String(err)})`,
        value: Number.NaN,
        unit: '',
        target: 'runs',
        ok: false,
      });
    }
  }
  // Timings mean little on a busy machine: say how busy it was.
  console.log(
    `${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (1/5/15 min) at the end of the run`,
  );
  const width = Math.max(...rows.map((r) => r.name.length), 10);
  console.log(`${'measure'.padEnd(width)}  ${'value'.padStart(9)}  unit          target     ok`);
  for (const r of rows) {
    const ok = r.ok === undefined ? '' : r.ok ? 'yes' : 'NO';
    console.log(`${r.name.padEnd(width)}  ${format(r.value).padStart(9)}  ${r.unit.padEnd(12)}  ${(r.target ?? '').padEnd(9)}  ${ok}`);
  }
  const missed = rows.filter((r) => r.ok === false);
  if (check && missed.length) {
    console.error(`\n${missed.length} target(s) missed: ${missed.map((r) => r.name).join('; ')}`);
    process.exitCode = 1;
  }
}

await main();
