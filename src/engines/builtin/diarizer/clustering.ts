/**
 * Agglomerative clustering of speech segments into speakers: start with one cluster per
 * segment, repeatedly merge the two most similar voices, stop when the closest pair is
 * "different" (dissimilarity >= 1) — or, when the caller knows how many people spoke, when
 * that many clusters are left. Distances are recomputed only for the merged cluster, so
 * n segments cost O(n²) comparisons; an hour of speech is a few thousand segments, so the
 * work gives the event loop a turn every few tens of milliseconds.
 */
import { dissimilarity, type ProfileTuning, type VoiceProfile } from './voice-profile.js';

const SLICE_MS = 30;

/** Cluster index per profile (0-based, in no particular order). */
export async function clusterVoices(
  profiles: readonly VoiceProfile[],
  tuning: ProfileTuning,
  numSpeakers?: number,
  signal?: AbortSignal,
): Promise<number[]> {
  let sliceStart = performance.now();
  const breathe = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    sliceStart = performance.now();
  };
  const n = profiles.length;
  const cluster = profiles.map((_, i) => i);
  const models: Array<VoiceProfile | undefined> = [...profiles];
  // Upper triangle only, packed: half the memory of a square matrix (n = 2,000 pieces: 16 MB).
  const distance = new Float64Array((n * (n - 1)) / 2);
  const at = (i: number, j: number) => i * n - (i * (i + 1)) / 2 + (j - i - 1); // i < j
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) distance[at(i, j)] = dissimilarity(profiles[i]!, profiles[j]!, tuning);
    await breathe();
  }
  let alive = n;
  const target = numSpeakers && numSpeakers > 0 ? numSpeakers : 1;
  while (alive > target) {
    await breathe();
    let best = Number.POSITIVE_INFINITY;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!models[i]) continue;
      for (let j = i + 1; j < n; j++) {
        if (models[j] && distance[at(i, j)]! < best) {
          best = distance[at(i, j)]!;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0 || (numSpeakers === undefined && best >= 1)) break;
    models[bi] = models[bi]!.merge(models[bj]!);
    models[bj] = undefined;
    for (let k = 0; k < n; k++) if (cluster[k] === bj) cluster[k] = bi;
    alive--;
    for (let k = 0; k < n; k++) {
      if (k === bi || !models[k]) continue;
      const d = dissimilarity(models[bi]!, models[k]!, tuning);
      if (k < bi) distance[at(k, bi)] = d;
      else distance[at(bi, k)] = d;
    }
  }
  return cluster;
}
