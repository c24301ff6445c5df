/**
 * What the process does with an error nobody caught (src/platform/process-guards.ts), in a
 * real child process: a rejection is logged and the process goes on; an uncaught exception is
 * logged at fatal level and starts the graceful stop with exit code 1.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const run = (mode: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'test/support/process-guards-child.ts', mode], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });

describe('errors nobody caught', { timeout: 60_000 }, () => {
  it('an unhandled rejection is logged at error level and the process goes on', () => {
    const r = run('reject');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('alive');
    const line = r.stdout.split('\n').find((l) => l.includes('unhandled promise rejection'));
    expect(line).toContain('"level":50');
    expect(line).toContain('background work failed');
  });

  it('an uncaught exception is logged at fatal level and stops the process gracefully with exit code 1', () => {
    const r = run('throw');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('stop uncaught exception 1');
    expect(r.stdout).not.toContain('alive');
    const line = r.stdout.split('\n').find((l) => l.includes('uncaught exception: stopping gracefully'));
    expect(line).toContain('"level":60');
    expect(line).toContain('a callback broke');
  });
});
