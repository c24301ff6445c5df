/**
 * The native libraries PocketSphinx code calls through koffi, each loaded once and held for
 * the life of the process. A koffi library object that is garbage-collected may unload the
 * library, and sphinxbase's global state went with it: its messages came back on stderr after
 * a collection that followed silenceSphinxLog (below), and a decoder's or model's
 * code must never be unloaded under it.
 */
import koffi from 'koffi';

type LibraryName = 'libsphinxbase.so.3' | 'libpocketsphinx.so.3' | 'libc.so.6';

const loaded = new Map<LibraryName, ReturnType<typeof koffi.load>>();

export function nativeLibrary(name: LibraryName): ReturnType<typeof koffi.load> {
  let lib = loaded.get(name);
  if (!lib) {
    lib = koffi.load(name);
    loaded.set(name, lib);
  }
  return lib;
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

/** File formats of ngram_model_read / ngram_model_write (sphinxbase's ngram_file_type_t). */
export const LM_FORMAT = { auto: 0, arpa: 1, binary: 2 } as const;

/**
 * Reads the language model at `path` (with its own log-math table, base 1.0001 like every
 * decoder's), runs `use` on it and frees both, whatever `use` does. The library's output is
 * off (silenceSphinxLog) before it reads anything.
 */
export function withLanguageModel<T>(path: string, format: number, use: (lm: unknown, lmath: unknown) => T): T {
  const sb = nativeLibrary('libsphinxbase.so.3');
  silenceSphinxLog();
  const lmath = sb.func('void *logmath_init(double, int, int)')(1.0001, 0, 0);
  const lm = sb.func('void *ngram_model_read(void *, const char *, int, void *)')(null, path, format, lmath);
  try {
    if (!lm) throw new Error(`language model not readable: ${path}`);
    return use(lm, lmath);
  } finally {
    if (lm) sb.func('int ngram_model_free(void *)')(lm);
    sb.func('int logmath_free(void *)')(lmath);
  }
}
