/**
 * Short-time spectral features for the classic diarizer, in plain TypeScript (no native
 * DSP package): 25 ms Hamming frames every 10 ms, a radix-2 FFT, a mel filterbank, log
 * energies and a DCT to cepstra (MFCC). The cepstra describe the spectral envelope (the vocal
 * tract); with the pitch (`pitch.ts`) they are the two cues the clustering compares.
 */

export const FRAME_HOP = 160; // 10 ms at 16 kHz
const FRAME_LENGTH = 400; // 25 ms
const FFT_SIZE = 512;
const PRE_EMPHASIS = 0.97;

export interface MfccOptions {
  sampleRate: number;
  /** Mel bands of the filterbank. */
  melBands: number;
  /** Cepstra kept, c1..cN (c0, the loudness, is dropped: it says more about the microphone than the voice). */
  cepstra: number;
  lowHz: number;
  highHz: number;
}

export const DEFAULT_MFCC: MfccOptions = { sampleRate: 16000, melBands: 40, cepstra: 19, lowHz: 100, highHz: 7600 };

/** In-place iterative radix-2 complex FFT of length n (a power of two). */
export class Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly rev: Uint32Array;

  constructor(readonly n: number) {
    if (n & (n - 1)) throw new Error(`FFT size ${n} is not a power of two`);
    this.cos = new Float64Array(n / 2);
    this.sin = new Float64Array(n / 2);
    for (let i = 0; i < n / 2; i++) {
      this.cos[i] = Math.cos((-2 * Math.PI * i) / n);
      this.sin[i] = Math.sin((-2 * Math.PI * i) / n);
    }
    this.rev = new Uint32Array(n);
    const bits = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.rev[i] = r;
    }
  }

  transform(re: Float64Array, im: Float64Array): void {
    const n = this.n;
    for (let i = 0; i < n; i++) {
      const j = this.rev[i]!;
      if (j > i) {
        let t = re[i]!;
        re[i] = re[j]!;
        re[j] = t;
        t = im[i]!;
        im[i] = im[j]!;
        im[j] = t;
      }
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          const wr = this.cos[k * step]!;
          const wi = this.sin[k * step]!;
          const a = start + k;
          const b = a + half;
          const xr = re[b]! * wr - im[b]! * wi;
          const xi = re[b]! * wi + im[b]! * wr;
          re[b] = re[a]! - xr;
          im[b] = im[a]! - xi;
          re[a] = re[a]! + xr;
          im[a] = im[a]! + xi;
        }
      }
    }
  }
}

const hzToMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
const melToHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);

/** Triangular filters equally spaced on the mel scale, as weights over the FFT bins 0..FFT_SIZE/2. */
export function melFilterbank(options: MfccOptions): Float64Array[] {
  const bins = FFT_SIZE / 2 + 1;
  const lo = hzToMel(options.lowHz);
  const hi = hzToMel(options.highHz);
  const edges = Array.from(
    { length: options.melBands + 2 },
    (_, i) => (melToHz(lo + ((hi - lo) * i) / (options.melBands + 1)) * FFT_SIZE) / options.sampleRate,
  );
  return Array.from({ length: options.melBands }, (_, m) => {
    const w = new Float64Array(bins);
    const [left, centre, right] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    for (let k = Math.floor(left); k <= Math.ceil(right) && k < bins; k++) {
      if (k > left && k <= centre) w[k] = (k - left) / (centre - left);
      else if (k > centre && k < right) w[k] = (right - k) / (right - centre);
    }
    return w;
  });
}

/** Orthonormal DCT-II rows 1..count (row 0, the mean log energy, is left out). */
function dctMatrix(bands: number, count: number): Float64Array[] {
  return Array.from({ length: count }, (_, r) => {
    const row = new Float64Array(bands);
    for (let b = 0; b < bands; b++) row[b] = Math.sqrt(2 / bands) * Math.cos((Math.PI * (r + 1) * (b + 0.5)) / bands);
    return row;
  });
}

/** Per-frame features: `data` holds `frames` rows of `dim` values each. */
export interface FeatureMatrix {
  frames: number;
  dim: number;
  data: Float64Array;
}

/** MFCC c1..cN for every 10 ms frame of `samples`. */
export function mfcc(samples: Float32Array, options: MfccOptions = DEFAULT_MFCC): FeatureMatrix {
  const frames = samples.length < FRAME_LENGTH ? 0 : 1 + Math.floor((samples.length - FRAME_LENGTH) / FRAME_HOP);
  const dim = options.cepstra;
  const data = new Float64Array(frames * dim);
  const fft = new Fft(FFT_SIZE);
  const bank = melFilterbank(options);
  const dct = dctMatrix(options.melBands, dim);
  const hamming = Float64Array.from({ length: FRAME_LENGTH }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME_LENGTH - 1)));
  const re = new Float64Array(FFT_SIZE);
  const im = new Float64Array(FFT_SIZE);
  const power = new Float64Array(FFT_SIZE / 2 + 1);
  const logMel = new Float64Array(options.melBands);
  for (let f = 0; f < frames; f++) {
    const at = f * FRAME_HOP;
    let mean = 0;
    for (let i = 0; i < FRAME_LENGTH; i++) mean += samples[at + i]!;
    mean /= FRAME_LENGTH;
    for (let i = 0; i < FRAME_LENGTH; i++) {
      const x = samples[at + i]! - mean;
      const prev = i === 0 ? (at > 0 ? samples[at - 1]! - mean : 0) : samples[at + i - 1]! - mean;
      re[i] = (x - PRE_EMPHASIS * prev) * hamming[i]!;
    }
    re.fill(0, FRAME_LENGTH);
    im.fill(0);
    fft.transform(re, im);
    for (let k = 0; k < power.length; k++) power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
    for (let m = 0; m < bank.length; m++) {
      const w = bank[m]!;
      let s = 0;
      for (let k = 0; k < w.length; k++) if (w[k]) s += w[k]! * power[k]!;
      logMel[m] = Math.log(s + 1e-10);
    }
    for (let c = 0; c < dim; c++) {
      const row = dct[c]!;
      let s = 0;
      for (let m = 0; m < logMel.length; m++) s += row[m]! * logMel[m]!;
      data[f * dim + c] = s;
    }
  }
  return { frames, dim, data };
}

/**
 * Cepstral mean and variance normalization over all the speech regions of one recording:
 * removes the channel's fixed colouring while keeping what differs between the speakers of
 * that recording. The statistics are gathered region by region (`add`), so the regions need
 * not be in memory together; `apply` then normalizes a region's frames when they are needed.
 */
export class CepstralNormalization {
  private readonly sum: Float64Array;
  private readonly sq: Float64Array;
  private count = 0;
  private readonly mean: Float64Array;
  private readonly sd: Float64Array;

  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
    this.sq = new Float64Array(dim);
    this.mean = new Float64Array(dim);
    this.sd = new Float64Array(dim).fill(1);
  }

  add(m: FeatureMatrix): void {
    for (let d = 0; d < this.dim; d++) {
      let sum = this.sum[d]!;
      let sq = this.sq[d]!;
      for (let f = 0; f < m.frames; f++) {
        const v = m.data[f * this.dim + d]!;
        sum += v;
        sq += v * v;
      }
      this.sum[d] = sum;
      this.sq[d] = sq;
    }
    this.count += m.frames;
  }

  /** Fixes the mean and deviation from what was added (fewer than 2 frames: left as they are). */
  finish(): void {
    if (this.count < 2) return;
    for (let d = 0; d < this.dim; d++) {
      const mean = this.sum[d]! / this.count;
      this.mean[d] = mean;
      this.sd[d] = Math.sqrt(Math.max(this.sq[d]! / this.count - mean * mean, 1e-8));
    }
  }

  apply(m: FeatureMatrix): void {
    for (let f = 0; f < m.frames; f++) {
      for (let d = 0; d < this.dim; d++) m.data[f * this.dim + d] = (m.data[f * this.dim + d]! - this.mean[d]!) / this.sd[d]!;
    }
  }
}
