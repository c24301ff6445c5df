/**
 * The native libraries PocketSphinx code calls through koffi, each loaded once and held for
 * the life of the process. A koffi library object that is garbage-collected may unload the
 * library, and sphinxbase's global state went with it: its messages came back on stderr after
 * a collection that followed silenceSphinxLog (derived-models.ts), and a decoder's or model's
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
