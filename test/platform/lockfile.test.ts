/**
 * `npm run serve` leaves a clone clean: setup's `npm install` rewrites package-lock.json
 * whenever it lacks what npm 11 writes, which is every platform's optional package (the
 * lockfile once omitted 36 of them, @biomejs/cli-darwin-* and others, and each serve added
 * 527 lines). Checked here without a registry: every optional dependency a locked package
 * names is itself locked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const packages = lock.packages as Record<string, { optionalDependencies?: Record<string, string> }>;

  it('locks every platform variant of every optional dependency (npm install keeps it as is)', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        // npm places a dependency next to its dependant, or hoists it to the top.
        if (!packages[`${path ? `${path}/` : ''}node_modules/${dep}`] && !packages[`node_modules/${dep}`])
          missing.push(`${path} -> ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('matches package.json (name, licence, every declared dependency)', () => {
    const root = packages[''] as Record<string, unknown>;
    expect(root.license).toBe(pkg.license);
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
  });
});
