/**
 * Speaker change detection inside one stretch of speech. A VAD segment is not one speaker:
 * people answer without a pause, and at turn changes voices overlap. So every 100 ms the
 * voice in the `context` frames before a candidate point is compared with the voice after
 * it; peaks of that dissimilarity above `threshold` become segment boundaries. The threshold
 * is below the clustering's on purpose: an extra cut inside one voice costs nothing (the
 * clustering joins the pieces again), a missed change cannot be undone.
 */
import type { FeatureMatrix } from './features.js';
import { dissimilarity, type ProfileTuning, VoiceProfile } from './voice-profile.js';

export interface ChangeDetection {
  /** Frames compared on each side of a candidate point. */
  context: number;
  /** No segment shorter than this many frames is cut off. */
  minSegment: number;
  /** Frames between candidate points. */
  step: number;
  threshold: number;
}

export const DEFAULT_CHANGE_DETECTION: ChangeDetection = { context: 200, minSegment: 100, step: 10, threshold: 0.5 };

/** Frame ranges [from, to) of [from, to) cut at the detected speaker changes. */
export function splitAtSpeakerChanges(
  features: FeatureMatrix,
  f0: Float64Array,
  from: number,
  to: number,
  tuning: ProfileTuning,
  options: ChangeDetection = DEFAULT_CHANGE_DETECTION,
): Array<[number, number]> {
  const candidates: Array<{ at: number; score: number }> = [];
  for (let at = from + options.minSegment; at <= to - options.minSegment; at += options.step) {
    const before = VoiceProfile.of(features, f0, Math.max(from, at - options.context), at);
    const after = VoiceProfile.of(features, f0, at, Math.min(to, at + options.context));
    candidates.push({ at, score: dissimilarity(before, after, tuning) });
  }
  // Strongest peaks first; each keeps the others at least minSegment away.
  const cuts: number[] = [];
  for (const c of [...candidates].sort((a, b) => b.score - a.score)) {
    if (c.score < options.threshold) break;
    if (cuts.every((cut) => Math.abs(cut - c.at) >= options.minSegment)) cuts.push(c.at);
  }
  cuts.sort((a, b) => a - b);
  const edges = [from, ...cuts, to];
  return edges.slice(1).map((end, i) => [edges[i]!, end]);
}
