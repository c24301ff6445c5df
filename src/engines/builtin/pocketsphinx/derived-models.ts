/**
 * Files derived from the installed PocketSphinx models (the dictionary cut to a language
 * model's words, the cut stream model): made once per machine, kept in the system temp
 * folder under a name that changes when a source file changes, written atomically so
 * concurrent processes see a whole file or none.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const DERIVED_DIR = join(tmpdir(), 'parley-pocketsphinx');

/** Where the file `name` derived from `sources` lives: named after the sources' paths, sizes and times. */
export function derivedModelPath(sources: string[], name: string, ext: string): string {
  const hash = createHash('sha256');
  for (const s of sources) {
    const st = statSync(s);
    hash.update(`${s}\0${st.size}\0${Math.floor(st.mtimeMs)}\0`);
  }
  return join(DERIVED_DIR, `${name}-${hash.digest('hex').slice(0, 16)}${ext}`);
}

/** Writes `data` to `target` through a temporary file and a rename. */
export function writeAtomically(target: string, data: string | Uint8Array): void {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, target);
}
