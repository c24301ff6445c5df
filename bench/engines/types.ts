/**
 * One line of the engine benchmark (`npm run bench:engines`). Sections under bench/engines/
 * export `async function run(): Promise<BenchRow[]>`; bench/engines.ts prints every row and,
 * with --check, fails when a row with a target is not `ok`.
 */
export interface BenchRow {
  /** What was measured, e.g. "file STT WER, LibriVox (5 clips)". */
  name: string;
  value: number;
  /** "%", "ms", "x realtime", "speakers", ... */
  unit: string;
  /** Human-readable target, e.g. "<= 0.35"; absent for information-only rows. */
  target?: string;
  /** Whether the target is met; absent when there is no target. */
  ok?: boolean;
}

/** A benchmark section: returns its rows; a section that cannot run here returns a row saying so. */
export type BenchSection = () => Promise<BenchRow[]>;

/** Builds a row with an upper-bound target (value must be <= limit). */
export function atMost(name: string, value: number, unit: string, limit: number): BenchRow {
  return { name, value, unit, target: `<= ${limit}`, ok: Number.isFinite(value) && value <= limit };
}

/** Builds a row with a lower-bound target (value must be >= limit). */
export function atLeast(name: string, value: number, unit: string, limit: number): BenchRow {
  return { name, value, unit, target: `>= ${limit}`, ok: Number.isFinite(value) && value >= limit };
}
