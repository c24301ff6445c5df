/**
 * The app as an older commit built it, serving the same data as the bench's own app: old and
 * new code measured side by side in one run, on one machine at one load, instead of figures
 * from runs hours apart. The commit's files are taken with `git archive` into a temporary
 * folder (no checkout or worktree is touched) and share this checkout's installed
 * node_modules, vendor, web/build and models; its own test harness starts it on the bench's
 * data folder and PostgreSQL schema (`reuse`, as restart tests do), in this process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fdDestination } from '../src/platform/log-destination.js';
import { createLogger } from '../src/platform/logging.js';
import type { TestApp } from '../test/support/app.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Installed, not in git: shared with the older tree as symlinks. */
const SHARED = ['node_modules', 'vendor', 'web/build', 'data/models', '.venv'];

export interface BaselineApp {
  /** The commit, abbreviated. */
  commit: string;
  url: string;
  close(): Promise<void>;
}

/** Starts `rev`'s app on `bench`'s data (same backend, same folder or schema). */
export async function startBaselineApp(rev: string, bench: Pick<TestApp, 'dataDir' | 'pgSchema' | 'backend'>): Promise<BaselineApp> {
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `parley-baseline-${commit}`);
  if (!existsSync(join(dir, 'package.json'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', commit], { cwd: ROOT, maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  for (const path of SHARED) {
    const from = join(ROOT, path);
    const to = join(dir, path);
    if (!existsSync(from) || existsSync(to)) continue;
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(realpathSync(from), to);
  }
  const harness = (await import(pathToFileURL(join(dir, 'test/support/app.ts')).href)) as typeof import('../test/support/app.js');
  const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'info', fdDestination(openSync('/dev/null', 'w')));
  const app = await harness.startTestApp({
    backend: bench.backend,
    contract: false,
    logger,
    reuse: { dataDir: bench.dataDir, pgSchema: bench.pgSchema },
  });
  return { commit, url: app.url, close: () => app.close() };
}
