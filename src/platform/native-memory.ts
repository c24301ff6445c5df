/**
 * Native memory of the process. Recognition and the other native engines allocate on koffi's
 * and onnxruntime's worker threads; glibc gives threads their own malloc arenas (up to 8 per
 * core), each keeping freed memory for itself, so a live session's decoder memory ended up
 * spread over arenas: bench:realtime measured 52.1 MB per additional live session with the
 * default and 45.4 MB with 2 arenas on 2 cores (same code, same run conditions).
 */
import { availableParallelism } from 'node:os';
import koffi from 'koffi';

/** glibc's mallopt parameter for the most arenas (malloc.h). */
const M_ARENA_MAX = -8;

/**
 * Caps glibc's malloc arenas at `count` (0: one per core). Call at start-up, before native
 * threads allocate. Elsewhere (musl, macOS) it does nothing; returns whether it applied.
 */
export function limitMallocArenas(count: number): boolean {
  try {
    const mallopt = koffi.load('libc.so.6').func('int mallopt(int, int)');
    return mallopt(M_ARENA_MAX, count > 0 ? count : availableParallelism()) === 1;
  } catch {
    return false;
  }
}
