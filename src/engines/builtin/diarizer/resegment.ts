/**
 * Boundary refinement. Change detection compares 2 s on either side of a point, so it finds
 * *that* the voice changed but places the change only to within a second or so. Once the
 * speakers are known, each change between two speakers inside one speech region is moved to
 * the frame where "speaker A before, speaker B after" explains the frames around it best,
 * each speaker modelled by a full-covariance Gaussian of its cepstra and a Gaussian of its
 * voiced log-pitch, both learnt from all of that speaker's speech.
 */
import type { FeatureMatrix } from './features.js';
import { GaussianStats } from './gaussian.js';

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

interface SpeakerModel {
  mean: Float64Array;
  /** Lower Cholesky factor of the covariance. */
  chol: Float64Array;
  logDet: number;
  pitchMean: number;
  pitchSd: number;
}

function speakerModel(regions: readonly RegionFrames[], pieces: readonly FramedPiece[], dim: number): SpeakerModel {
  const stats = new GaussianStats(dim);
  let n = 0;
  let sum = 0;
  let sq = 0;
  for (const p of pieces) {
    const r = regions[p.region]!;
    for (let f = p.from; f < p.to; f++) {
      stats.addFrame(r.features, f);
      const hz = r.f0[f]!;
      if (hz > 0) {
        const oct = Math.log2(hz);
        n++;
        sum += oct;
        sq += oct * oct;
      }
    }
  }
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

/** Moves each change between two speakers inside a region to its most likely frame (pieces are in time order; edited in place). */
export function refineChanges(regions: readonly RegionFrames[], pieces: FramedPiece[]): void {
  const dim = regions[0]?.features.dim ?? 0;
  const models = new Map<number, SpeakerModel>();
  const model = (speaker: number) => {
    let m = models.get(speaker);
    if (!m) {
      m = speakerModel(
        regions,
        pieces.filter((p) => p.speaker === speaker),
        dim,
      );
      models.set(speaker, m);
    }
    return m;
  };
  const scratch = new Float64Array(dim);
  for (let k = 0; k + 1 < pieces.length; k++) {
    const a = pieces[k]!;
    const b = pieces[k + 1]!;
    if (a.region !== b.region || a.to !== b.from || a.speaker === b.speaker) continue;
    const lo = Math.max(a.from + MIN_KEEP, a.to - REACH);
    const hi = Math.min(b.to - MIN_KEEP, b.from + REACH);
    if (hi <= lo) continue;
    const region = regions[a.region]!;
    const ma = model(a.speaker);
    const mb = model(b.speaker);
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
