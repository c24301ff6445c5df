/**
 * Boundary refinement. Change detection compares 2 s on either side of a point, so it finds
 * *that* the voice changed but places the change only to within a second or so. Once the
 * speakers are known, each change between two speakers inside one speech region is moved to
 * the frame where "speaker A before, speaker B after" explains the frames around it best,
 * each speaker modelled by a full-covariance Gaussian of its cepstra and a Gaussian of its
 * voiced log-pitch, both learnt from all of that speaker's speech.
 */
import type { FeatureMatrix } from './features.js';
import type { GaussianStats } from './gaussian.js';

export interface FramedPiece {
  region: number;
  /** Frame range [from, to) inside the region. */
  from: number;
  to: number;
  speaker: number;
}

interface RegionFrames {
  features: FeatureMatrix;
  f0: Float64Array;
}

/** Frames a change may move either way. */
const REACH = 100;
/** Frames every piece keeps on its side of a moved change. */
const MIN_KEEP = 30;
const PITCH_SD_FLOOR = 0.08; // octaves

/** Count, sum and sum of squares of the log2 pitch of voiced frames; they add like GaussianStats. */
export class PitchStats {
  constructor(
    readonly n = 0,
    readonly sum = 0,
    readonly sq = 0,
  ) {}

  static of(f0: Float64Array, from: number, to: number): PitchStats {
    let n = 0;
    let sum = 0;
    let sq = 0;
    for (let f = from; f < to; f++) {
      const hz = f0[f]!;
      if (hz > 0) {
        const oct = Math.log2(hz);
        n++;
        sum += oct;
        sq += oct * oct;
      }
    }
    return new PitchStats(n, sum, sq);
  }

  plus(o: PitchStats): PitchStats {
    return new PitchStats(this.n + o.n, this.sum + o.sum, this.sq + o.sq);
  }
}

export interface SpeakerModel {
  mean: Float64Array;
  /** Lower Cholesky factor of the covariance. */
  chol: Float64Array;
  logDet: number;
  pitchMean: number;
  pitchSd: number;
}

/** A speaker's model from the statistics of all of its speech. */
export function speakerModel(stats: GaussianStats, pitch: PitchStats): SpeakerModel {
  const dim = stats.dim;
  const { n, sum, sq } = pitch;
  const chol = stats.covariance();
  let logDet = 0;
  for (let j = 0; j < dim; j++) {
    let s = chol[j * dim + j]!;
    for (let k = 0; k < j; k++) s -= chol[j * dim + k]! ** 2;
    const d = Math.sqrt(Math.max(s, 1e-10));
    chol[j * dim + j] = d;
    logDet += 2 * Math.log(d);
    for (let i = j + 1; i < dim; i++) {
      let t = chol[i * dim + j]!;
      for (let k = 0; k < j; k++) t -= chol[i * dim + k]! * chol[j * dim + k]!;
      chol[i * dim + j] = t / d;
    }
  }
  const pitchMean = n > 0 ? sum / n : 0;
  const pitchSd = n > 1 ? Math.max(Math.sqrt(Math.max(sq / n - pitchMean * pitchMean, 0)), PITCH_SD_FLOOR) : 1;
  return { mean: stats.mean(), chol, logDet, pitchMean, pitchSd };
}

/** log-likelihood of one frame (cepstra, and pitch when voiced) under a speaker model, up to a shared constant. */
function frameLogLik(m: SpeakerModel, region: RegionFrames, f: number, scratch: Float64Array): number {
  const { dim, data } = region.features;
  // Solve L y = x - mean; the Mahalanobis distance is |y|².
  let maha = 0;
  for (let i = 0; i < dim; i++) {
    let v = data[f * dim + i]! - m.mean[i]!;
    for (let k = 0; k < i; k++) v -= m.chol[i * dim + k]! * scratch[k]!;
    scratch[i] = v / m.chol[i * dim + i]!;
    maha += scratch[i]! ** 2;
  }
  let ll = -0.5 * (maha + m.logDet);
  const hz = region.f0[f]!;
  if (hz > 0) ll += -0.5 * ((Math.log2(hz) - m.pitchMean) / m.pitchSd) ** 2 - Math.log(m.pitchSd);
  return ll;
}

/**
 * Moves each change between two speakers inside one region to its most likely frame.
 * `pieces` are that region's, in time order (edited in place); `models` has every speaker's.
 */
export function refineChanges(region: RegionFrames, pieces: FramedPiece[], models: ReadonlyMap<number, SpeakerModel>): void {
  const scratch = new Float64Array(region.features.dim);
  for (let k = 0; k + 1 < pieces.length; k++) {
    const a = pieces[k]!;
    const b = pieces[k + 1]!;
    if (a.region !== b.region || a.to !== b.from || a.speaker === b.speaker) continue;
    const lo = Math.max(a.from + MIN_KEEP, a.to - REACH);
    const hi = Math.min(b.to - MIN_KEEP, b.from + REACH);
    if (hi <= lo) continue;
    const ma = models.get(a.speaker)!;
    const mb = models.get(b.speaker)!;
    // argmax over t of Σ_{lo<=f<t} (ℓA − ℓB): "A up to t, B from t".
    let run = 0;
    let best = 0;
    let at = lo;
    for (let f = lo; f < hi; f++) {
      run += frameLogLik(ma, region, f, scratch) - frameLogLik(mb, region, f, scratch);
      if (run > best) {
        best = run;
        at = f + 1;
      }
    }
    a.to = at;
    b.from = at;
  }
}
