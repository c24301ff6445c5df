/**
 * The engine host's own tests (Python unittest, engine-host/tests, on the real Whisper model),
 * one test per module. They run as a file of this suite rather than as a step before it, so the
 * test run schedules them beside the other files on its two workers: as a step of their own
 * they kept one core idle for two to three minutes of every CI run (docs/benchmarks.md, "CI time
 * (session 22)").
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_HOST_PYTHON } from '../../src/engines/models/paths.js';
import { whisperMissing } from '../support/whisper.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TESTS = join(ROOT, 'engine-host', 'tests');
const modules = readdirSync(TESTS).filter((f) => /^test_\w+\.py$/.test(f));

/** Runs one test module from the project root, as `python -m unittest discover engine-host/tests` would. */
function unittest(module: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ENGINE_HOST_PYTHON, ['-m', 'unittest', 'discover', '-s', 'engine-host/tests', '-p', module], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe.skipIf(whisperMissing() !== null)('engine host: Python unittest modules (engine-host/tests)', () => {
  it('finds the modules', () => {
    expect(modules.length).toBeGreaterThanOrEqual(9);
  });

  it.each(modules)(
    '%s passes',
    async (module) => {
      const { code, output } = await unittest(module);
      // unittest prints "Ran N tests" and "OK" (or the failures) on stderr: the whole of it on failure.
      expect(code, output).toBe(0);
      expect(output).toMatch(/^Ran [1-9]\d* tests? in /m);
    },
    600_000,
  );
});
