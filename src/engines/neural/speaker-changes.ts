/**
 * Speaker changes inside one utterance from speaker embeddings: windows of WINDOW_MS every
 * HOP_MS are embedded; at each hop the window that ends there is compared with the window that
 * starts there, and the points where they are least alike (cosine similarity below
 * `changeBelow`), at least MIN_PIECE_MS apart, cut the utterance. An utterance shorter than two
 * windows is not cut (its pieces could not be judged anyway).
 */
export type UnitEmbed = (samples: Float32Array) => Float32Array | null;

const SAMPLES_PER_MS = 16;
const WINDOW_MS = 1_000;
const HOP_MS = 250;
const MIN_PIECE_MS = 1_000;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/** Sample ranges [from, to) of `samples` cut where the voice changes. */
export function splitAtEmbeddingChanges(samples: Float32Array, embed: UnitEmbed, changeBelow: number): Array<[number, number]> {
  const win = WINDOW_MS * SAMPLES_PER_MS;
  const hop = HOP_MS * SAMPLES_PER_MS;
  if (samples.length < 2 * win) return [[0, samples.length]];
  const windows: Array<Float32Array | null> = [];
  for (let at = 0; at + win <= samples.length; at += hop) windows.push(embed(samples.subarray(at, at + win)));
  const perWindow = win / hop;
  const candidates: Array<{ at: number; sim: number }> = [];
  for (let k = perWindow; k < windows.length; k++) {
    const before = windows[k - perWindow];
    const after = windows[k];
    if (before && after) candidates.push({ at: k * hop, sim: dot(before, after) });
  }
  const cuts: number[] = [];
  for (const c of candidates.sort((a, b) => a.sim - b.sim)) {
    if (c.sim >= changeBelow) break;
    if (cuts.every((cut) => Math.abs(cut - c.at) >= MIN_PIECE_MS * SAMPLES_PER_MS)) cuts.push(c.at);
  }
  cuts.sort((a, b) => a - b);
  const edges = [0, ...cuts, samples.length];
  return edges.slice(1).map((end, i) => [edges[i] as number, end]);
}
