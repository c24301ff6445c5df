/**
 * Sufficient statistics of a full-covariance Gaussian over feature frames, and the Bayesian
 * information criterion that compares "one voice" with "two voices" for two sets of frames.
 * Statistics add, so a merged cluster costs no pass over its frames.
 */
import type { FeatureMatrix } from './features.js';

export class GaussianStats {
  n = 0;
  readonly sum: Float64Array;
  /** Upper triangle (row-major, i <= j) of the sum of outer products. */
  readonly outer: Float64Array;

  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
    this.outer = new Float64Array((dim * (dim + 1)) / 2);
  }

  static of(features: FeatureMatrix, frames: Iterable<number>): GaussianStats {
    const g = new GaussianStats(features.dim);
    for (const f of frames) g.addFrame(features, f);
    return g;
  }

  addFrame(features: FeatureMatrix, frame: number): void {
    const { dim, data } = features;
    const base = frame * dim;
    this.n++;
    let k = 0;
    for (let i = 0; i < dim; i++) {
      const xi = data[base + i]!;
      this.sum[i] = this.sum[i]! + xi;
      for (let j = i; j < dim; j++, k++) this.outer[k] = this.outer[k]! + xi * data[base + j]!;
    }
  }

  plus(other: GaussianStats): GaussianStats {
    const g = new GaussianStats(this.dim);
    g.n = this.n + other.n;
    for (let i = 0; i < this.sum.length; i++) g.sum[i] = this.sum[i]! + other.sum[i]!;
    for (let i = 0; i < this.outer.length; i++) g.outer[i] = this.outer[i]! + other.outer[i]!;
    return g;
  }

  mean(): Float64Array {
    return this.sum.map((s) => s / Math.max(this.n, 1));
  }

  /** Maximum-likelihood covariance as a full dim x dim matrix, with a small floor on the diagonal. */
  covariance(): Float64Array {
    const d = this.dim;
    const m = this.mean();
    const c = new Float64Array(d * d);
    let k = 0;
    for (let i = 0; i < d; i++) {
      for (let j = i; j < d; j++) {
        const v = this.outer[k++]! / Math.max(this.n, 1) - m[i]! * m[j]!;
        c[i * d + j] = v;
        c[j * d + i] = v;
      }
      c[i * d + i] = c[i * d + i]! + 1e-3;
    }
    return c;
  }

  /**
   * log |covariance|, corrected for the downward bias of the sample estimate: with a few
   * hundred frames in 19 dimensions the raw value is several nats too small, and by less for
   * a merged (larger) set, which would make any two short stretches look like two voices.
   * E[ln|S|] = ln|Σ| + Σᵢ ψ((n − i) / 2) + d ln(2 / n) for the ML covariance S of n frames.
   */
  logDet(): number {
    const raw = choleskyLogDet(this.covariance(), this.dim);
    if (this.n <= this.dim + 1) return raw;
    let bias = this.dim * Math.log(2 / this.n);
    for (let i = 1; i <= this.dim; i++) bias += digamma((this.n - i) / 2);
    return raw - bias;
  }
}

/** ψ(x) for x > 0: recurrence up to x >= 6, then the asymptotic series. */
export function digamma(x: number): number {
  let acc = 0;
  let v = x;
  while (v < 6) {
    acc -= 1 / v;
    v += 1;
  }
  const inv2 = 1 / (v * v);
  return acc + Math.log(v) - 0.5 / v - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252));
}

/** log determinant of a symmetric positive-definite d x d matrix (overwritten). */
export function choleskyLogDet(a: Float64Array, d: number): number {
  let logDet = 0;
  for (let j = 0; j < d; j++) {
    let s = a[j * d + j]!;
    for (let k = 0; k < j; k++) s -= a[j * d + k]! * a[j * d + k]!;
    const diag = Math.sqrt(Math.max(s, 1e-10));
    a[j * d + j] = diag;
    logDet += 2 * Math.log(diag);
    for (let i = j + 1; i < d; i++) {
      let t = a[i * d + j]!;
      for (let k = 0; k < j; k++) t -= a[i * d + k]! * a[j * d + k]!;
      a[i * d + j] = t / diag;
    }
  }
  return logDet;
}

/**
 * ΔBIC of modelling a and b with one Gaussian instead of two: positive when two models
 * explain the frames better than the extra parameters cost, i.e. "different speakers".
 * `penalty` (λ) scales the parameter cost; 1 is the textbook criterion.
 */
export function deltaBic(a: GaussianStats, b: GaussianStats, penalty: number, logDets?: { a?: number; b?: number }): number {
  const ab = a.plus(b);
  const d = a.dim;
  const params = d + (d * (d + 1)) / 2;
  const gain = 0.5 * (ab.n * ab.logDet() - a.n * (logDets?.a ?? a.logDet()) - b.n * (logDets?.b ?? b.logDet()));
  return gain - penalty * 0.5 * params * Math.log(ab.n);
}
