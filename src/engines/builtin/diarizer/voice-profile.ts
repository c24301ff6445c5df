/**
 * What the diarizer knows about a stretch of speech (a window, a segment or a whole
 * cluster): a full-covariance Gaussian of its cepstra and a histogram of its voiced pitch.
 * Profiles add up, so merging two clusters costs no pass over their frames.
 *
 * Two cues, because neither is enough alone on short recordings:
 * - pitch: the median F0 of a voice is stable to about a third of an octave over a
 *   sentence, and two men of similar timbre often differ by more than half an octave;
 * - cepstra: ΔBIC between the two Gaussians grows with duration only when the voices really
 *   differ (for one voice it is dominated by *what* was said and stays bounded), so it
 *   decides on long segments, where pitch alone would be fooled by intonation.
 */
import type { FeatureMatrix } from './features.js';
import { deltaBic, GaussianStats } from './gaussian.js';

const PITCH_BINS_PER_OCTAVE = 24;
const PITCH_LOW_HZ = 50;
const PITCH_BINS = PITCH_BINS_PER_OCTAVE * 3; // 50..400 Hz

export interface ProfileTuning {
  /** Pitch medians this far apart (octaves) count as different voices on their own. */
  pitchOctaves: number;
  /** Voiced frames each side needs before its pitch median is trusted. */
  minVoicedFrames: number;
  /** ΔBIC (λ = 1) that counts as different voices on its own. */
  bicScale: number;
}

export const DEFAULT_TUNING: ProfileTuning = { pitchOctaves: 0.55, minVoicedFrames: 40, bicScale: 600 };

export class VoiceProfile {
  private constructor(
    readonly cepstra: GaussianStats,
    readonly pitch: Uint32Array,
    readonly voiced: number,
  ) {}

  static of(features: FeatureMatrix, f0: Float64Array, from: number, to: number): VoiceProfile {
    const pitch = new Uint32Array(PITCH_BINS);
    let voiced = 0;
    for (let f = from; f < to; f++) {
      const bin = pitchBin(f0[f]!);
      if (bin < 0) continue;
      pitch[bin]!++;
      voiced++;
    }
    return new VoiceProfile(GaussianStats.of(features, range(from, to)), pitch, voiced);
  }

  merge(other: VoiceProfile): VoiceProfile {
    const pitch = new Uint32Array(PITCH_BINS);
    for (let i = 0; i < PITCH_BINS; i++) pitch[i] = this.pitch[i]! + other.pitch[i]!;
    return new VoiceProfile(this.cepstra.plus(other.cepstra), pitch, this.voiced + other.voiced);
  }

  get frames(): number {
    return this.cepstra.n;
  }

  /** Median voiced pitch in octaves above 50 Hz, or undefined without enough voiced frames. */
  medianPitch(minVoiced: number): number | undefined {
    if (this.voiced < minVoiced) return undefined;
    let seen = 0;
    for (let i = 0; i < PITCH_BINS; i++) {
      seen += this.pitch[i]!;
      if (seen * 2 >= this.voiced) return (i + 0.5) / PITCH_BINS_PER_OCTAVE;
    }
    return undefined;
  }
}

function pitchBin(hz: number): number {
  if (!(hz > PITCH_LOW_HZ)) return -1;
  return Math.min(PITCH_BINS - 1, Math.floor(Math.log2(hz / PITCH_LOW_HZ) * PITCH_BINS_PER_OCTAVE));
}

function* range(from: number, to: number): Generator<number> {
  for (let f = from; f < to; f++) yield f;
}

/**
 * How different two voices are: 1 is the boundary between "same" and "different"; each cue
 * contributes its share, so a clear pitch gap or a clear spectral gap decides alone and two
 * half-clear ones decide together.
 */
export function dissimilarity(a: VoiceProfile, b: VoiceProfile, tuning: ProfileTuning = DEFAULT_TUNING): number {
  const pa = a.medianPitch(tuning.minVoicedFrames);
  const pb = b.medianPitch(tuning.minVoicedFrames);
  const pitch = pa === undefined || pb === undefined ? 0 : Math.abs(pa - pb) / tuning.pitchOctaves;
  const bic = Math.max(0, deltaBic(a.cepstra, b.cepstra, 1)) / tuning.bicScale;
  return pitch + bic;
}
