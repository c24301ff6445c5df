import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** "<package version>+<commit>" (commit from PARLEY_BUILD_COMMIT at build time, else git). */
export function buildString(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  let commit = process.env.PARLEY_BUILD_COMMIT ?? '';
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        cwd: new URL('../..', import.meta.url),
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    } catch {
      commit = 'unknown';
    }
  }
  return `${pkg.version}+${commit}`;
}
