/**
 * Agglomerative clustering of speech segments into speakers: start with one cluster per
 * segment, repeatedly merge the two most similar voices, stop when the closest pair is
 * "different" (dissimilarity >= 1) — or, when the caller knows how many people spoke, when
 * that many clusters are left. Distances are recomputed only for the merged cluster, and
 * each row remembers its closest cluster, so n segments cost O(n²) comparisons and steps
 * (a full scan per merge was O(n³): 30 minutes of two-voice audio took 8 times as long as
 * 10); the work gives the event loop a turn every few tens of milliseconds.
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
  // Each row's closest later cluster, so a merge step scans n rows, not n² pairs: ties resolve
  // as a full scan would (the first pair in row-major order), so the result is the same.
  const nearest = new Int32Array(n).fill(-1);
  const nearestD = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const rescan = (i: number) => {
    nearest[i] = -1;
    nearestD[i] = Number.POSITIVE_INFINITY;
    for (let j = i + 1; j < n; j++) {
      if (models[j] && distance[at(i, j)]! < nearestD[i]!) {
        nearestD[i] = distance[at(i, j)]!;
        nearest[i] = j;
      }
    }
  };
  for (let i = 0; i < n; i++) rescan(i);
  let alive = n;
  const target = numSpeakers && numSpeakers > 0 ? numSpeakers : 1;
  while (alive > target) {
    await breathe();
    let bi = -1;
    for (let i = 0; i < n; i++) if (models[i] && nearest[i]! >= 0 && (bi < 0 || nearestD[i]! < nearestD[bi]!)) bi = i;
    if (bi < 0 || (numSpeakers === undefined && nearestD[bi]! >= 1)) break;
    const bj = nearest[bi]!;
    models[bi] = models[bi]!.merge(models[bj]!);
    models[bj] = undefined;
    for (let k = 0; k < n; k++) if (cluster[k] === bj) cluster[k] = bi;
    alive--;
    for (let k = 0; k < n; k++) {
      if (k === bi || !models[k]) continue;
      const d = dissimilarity(models[bi]!, models[k]!, tuning);
      if (k > bi) {
        distance[at(bi, k)] = d;
        continue;
      }
      distance[at(k, bi)] = d;
      if (nearest[k] === bi || nearest[k] === bj) rescan(k);
      else if (d < nearestD[k]! || (d === nearestD[k]! && bi < nearest[k]!)) {
        nearest[k] = bi;
        nearestD[k] = d;
      }
    }
    rescan(bi);
    // Rows after bi that pointed at the merged-away cluster.
    for (let k = bi + 1; k < bj; k++) if (models[k] && nearest[k] === bj) rescan(k);
  }
  return cluster;
}
