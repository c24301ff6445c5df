/**
 * Audio held as a list of chunks (live streams keep what they receive without copying it
 * into one growing buffer): copying a range of samples out of them.
 */
type Samples = Int16Array | Float32Array;

/**
 * The samples [from, to) (absolute sample positions) of `chunks`, whose first sample is at
 * `chunksStart`, in a new array made by `make`; parts outside what is held stay zero.
 */
export function copyRange<T extends Samples>(
  chunks: readonly T[],
  chunksStart: number,
  from: number,
  to: number,
  make: (length: number) => T,
): T {
  const out = make(Math.max(0, to - from));
  let at = chunksStart;
  for (const c of chunks) {
    const lo = Math.max(from, at);
    const hi = Math.min(to, at + c.length);
    if (hi > lo) out.set(c.subarray(lo - at, hi - at), lo - from);
    at += c.length;
  }
  return out;
}
