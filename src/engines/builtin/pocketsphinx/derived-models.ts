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
import { nativeLibrary } from './libraries.js';

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

let silenced = false;

/**
 * Turns sphinxbase's and PocketSphinx's output off for the process, once: the message callback
 * is removed (err_set_logfp(NULL) does not stop messages in this library version) and the
 * library's log FILE, which some code writes to directly (ps_init's dump of its settings), is
 * a /dev/null opened here and never closed. Decoders must not be given `-logfn`: ps_init then
 * swaps that one global FILE and fcloses the previous one while other threads may still write
 * to it (native.ts).
 */
export function silenceSphinxLog(): void {
  if (silenced) return;
  const sb = nativeLibrary('libsphinxbase.so.3');
  const devNull = nativeLibrary('libc.so.6').func('void *fopen(const char *, const char *)')('/dev/null', 'w');
  if (devNull) sb.func('void err_set_logfp(void *)')(devNull);
  sb.func('void err_set_callback(void *, void *)')(null, null);
  silenced = true;
}
