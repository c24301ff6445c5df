/**
 * What the diarizer knows about a stretch of speech (a window, a segment or a whole
 * cluster): a full-covariance Gaussian of its cepstra and a histogram of its voiced pitch.
 * Profiles add up, so merging two clusters costs no pass over their frames.
 *
 * Two cues, either of which can tell two voices apart on its own:
 * - pitch: the habitual speaking pitch of a voice (here the 60th percentile of its voiced
 *   F0, above the sentence-final creak and declination that pull the lower half down) is
 *   stable to about a third of an octave; two men of similar timbre often differ by more;
 * - cepstra: ΔBIC between the two Gaussians. On a few seconds it mostly measures *what* was
 *   said, so it only counts on stretches of 2 s or more and must grow with their length;
 *   then it separates voices that share a pitch (and different microphones).
 * Measured on this project's recordings (see ARCHITECTURE.md): one reader's sentences reach
 * 0.9 of the boundary, the two voices of stereo_diarization 1.2 to 1.8 (also as MP3, at
 * 8 kHz and with noise).
 */
import type { FeatureMatrix } from './features.js';
import { deltaBic, GaussianStats } from './gaussian.js';

const PITCH_BINS_PER_OCTAVE = 48;
const PITCH_LOW_HZ = 50;
const PITCH_BINS = PITCH_BINS_PER_OCTAVE * 3; // 50..400 Hz

export interface ProfileTuning {
  /** Speaking pitches this far apart (octaves) count as different voices. */
  pitchOctaves: number;
  /** Voiced frames each side needs before its pitch is trusted. */
  minVoicedFrames: number;
  /** Which percentile of the voiced F0 is "the speaking pitch" (0..1). */
  pitchQuantile: number;
  /** ΔBIC (λ = 1, bias-corrected) that counts as different voices ... */
  bicScale: number;
  /** ... or this much per frame of the two stretches together, when that is more. */
  bicPerFrame: number;
  /** Frames each side needs before ΔBIC is trusted. */
  minBicFrames: number;
}

export const DEFAULT_TUNING: ProfileTuning = {
  pitchOctaves: 0.44,
  minVoicedFrames: 40,
  pitchQuantile: 0.6,
  bicScale: 150,
  bicPerFrame: 0.5,
  minBicFrames: 200,
};

export class VoiceProfile {
  private cachedLogDet: number | undefined;

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

  /** log |covariance| of the cepstra, computed once: a profile is compared with every other one. */
  get logDet(): number {
    this.cachedLogDet ??= this.cepstra.logDet();
    return this.cachedLogDet;
  }

  merge(other: VoiceProfile): VoiceProfile {
    const pitch = new Uint32Array(PITCH_BINS);
    for (let i = 0; i < PITCH_BINS; i++) pitch[i] = this.pitch[i]! + other.pitch[i]!;
    return new VoiceProfile(this.cepstra.plus(other.cepstra), pitch, this.voiced + other.voiced);
  }

  get frames(): number {
    return this.cepstra.n;
  }

  /** A percentile (0..1) of the voiced pitch in octaves above 50 Hz, or undefined without enough voiced frames. */
  speakingPitch(quantile: number, minVoiced: number): number | undefined {
    if (this.voiced < minVoiced) return undefined;
    const target = this.voiced * quantile;
    let seen = 0;
    for (let i = 0; i < PITCH_BINS; i++) {
      const inBin = this.pitch[i]!;
      // Linear within the bin, so the quantile moves smoothly as frames are added.
      if (inBin > 0 && seen + inBin >= target) return (i + (target - seen) / inBin) / PITCH_BINS_PER_OCTAVE;
      seen += inBin;
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
 * How different two voices are: 1 is the boundary between "same" and "different", and the
 * clearer of the two cues decides (a pitch gap is not made up for by similar cepstra, and
 * the other way round).
 */
export function dissimilarity(a: VoiceProfile, b: VoiceProfile, tuning: ProfileTuning = DEFAULT_TUNING): number {
  const pa = a.speakingPitch(tuning.pitchQuantile, tuning.minVoicedFrames);
  const pb = b.speakingPitch(tuning.pitchQuantile, tuning.minVoicedFrames);
  const pitch = pa === undefined || pb === undefined ? 0 : Math.abs(pa - pb) / tuning.pitchOctaves;
  if (pitch >= 1 || Math.min(a.frames, b.frames) < tuning.minBicFrames) return pitch;
  const scale = Math.max(tuning.bicScale, tuning.bicPerFrame * (a.frames + b.frames));
  const bic = Math.max(0, deltaBic(a.cepstra, b.cepstra, 1, { a: a.logDet, b: b.logDet })) / scale;
  return Math.max(pitch, bic);
}
