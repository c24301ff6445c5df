/**
 * Speaker changes inside one utterance from speaker embeddings of windows: WINDOW_MS of audio
 * every HOP_MS on a grid of the session's time (so the windows an interim embedded serve the
 * final again). At each grid point the window that ends there is compared with the window that
 * starts there; the points where they are least alike (cosine similarity of the unit embeddings
 * below `changeBelow`), at least MIN_PIECE_MS apart, cut the utterance. Every point has a full
 * window on each side inside the utterance, so no piece under WINDOW_MS is cut off at its edges.
 */
export const WINDOW_MS = 1_000;
export const HOP_MS = 250;
const MIN_PIECE_MS = 1_000;

/** A window [atMs, atMs + WINDOW_MS) and its unit embedding (null: the model could not embed it). */
export interface EmbeddedWindow {
  atMs: number;
  embedding: Float32Array | null;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/** [fromMs, toMs) cut where the voice changes, from the windows inside it (any order). */
export function splitAtEmbeddingChanges(
  windows: readonly EmbeddedWindow[],
  fromMs: number,
  toMs: number,
  changeBelow: number,
): Array<[number, number]> {
  const byStart = new Map(windows.map((w) => [w.atMs, w.embedding]));
  const candidates: Array<{ atMs: number; sim: number }> = [];
  for (const w of windows) {
    const before = byStart.get(w.atMs - WINDOW_MS);
    if (w.embedding && before && w.atMs - WINDOW_MS >= fromMs && w.atMs + WINDOW_MS <= toMs)
      candidates.push({ atMs: w.atMs, sim: dot(before, w.embedding) });
  }
  const cuts: number[] = [];
  for (const c of candidates.sort((a, b) => a.sim - b.sim)) {
    if (c.sim >= changeBelow) break;
    if (cuts.every((cut) => Math.abs(cut - c.atMs) >= MIN_PIECE_MS)) cuts.push(c.atMs);
  }
  cuts.sort((a, b) => a - b);
  const edges = [fromMs, ...cuts, toMs];
  return edges.slice(1).map((end, i) => [edges[i] as number, end]);
}
