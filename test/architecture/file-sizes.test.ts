/**
 * Small files (issue 29): no source file under src/ is over 400 lines, except generated ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const MAX_LINES = 400;

/** Written by a generator (`npm run client:types`), not by hand. */
const GENERATED = ['src/client/api-types.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

const lineCount = (path: string) => readFileSync(path, 'utf8').replace(/\n$/, '').split('\n').length;

describe('file sizes', () => {
  it(`no source file under src/ is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(join(root, 'src'));
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((path) => ({ file: relative(root, path), lines: lineCount(path) }))
      .filter((f) => f.lines > MAX_LINES && !GENERATED.includes(f.file))
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });
});
