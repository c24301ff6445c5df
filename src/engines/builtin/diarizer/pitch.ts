/**
 * Pitch (F0) per 10 ms frame, aligned with `mfcc`'s frames. Pitch is the speaker cue the
 * cepstral envelope misses: two men of similar timbre often differ by half an octave in how
 * high they speak.
 *
 * Normalized cross-correlation on the signal low-passed below 1 kHz and decimated to 8 kHz:
 * the voice's lower harmonics carry the period, broadband noise above them is filtered out
 * (so noisy speech still counts as voiced), and the search is four times cheaper.
 */
import { FRAME_HOP } from './features.js';

const DECIMATION = 2; // 16 kHz -> 8 kHz
const CUTOFF_HZ = 1000;
const TAPS = 31;
const WINDOW = 256; // 32 ms at 8 kHz: two periods of a 60 Hz voice
const MIN_F0 = 60;
const MAX_F0 = 400;
/** Normalized correlation a frame needs to count as voiced: clearly periodic frames only (one voice, a vowel). */
const VOICING = 0.85;
/** A shorter lag wins when its correlation peak reaches this share of the best one. */
const OCTAVE_TOLERANCE = 0.85;

/** Windowed-sinc low-pass FIR (Hamming), unity gain at DC. */
function lowPass(sampleRate: number): Float64Array {
  const h = new Float64Array(TAPS);
  const fc = CUTOFF_HZ / sampleRate;
  const mid = (TAPS - 1) / 2;
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const x = i - mid;
    const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
    h[i] = sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (TAPS - 1)));
    sum += h[i]!;
  }
  for (let i = 0; i < TAPS; i++) h[i] = h[i]! / sum;
  return h;
}

/** F0 in Hz per frame, 0 where the frame is not clearly voiced. */
export function pitchTrack(samples: Float32Array, frames: number, sampleRate = 16000): Float64Array {
  const rate = sampleRate / DECIMATION;
  const h = lowPass(sampleRate);
  const n = Math.floor(samples.length / DECIMATION);
  const x = new Float64Array(n);
  const mid = (TAPS - 1) / 2;
  for (let j = 0; j < n; j++) {
    const centre = j * DECIMATION;
    let s = 0;
    for (let k = 0; k < TAPS; k++) {
      const i = centre + k - mid;
      if (i >= 0 && i < samples.length) s += h[k]! * samples[i]!;
    }
    x[j] = s;
  }
  const f0 = new Float64Array(frames);
  const minLag = Math.floor(rate / MAX_F0);
  const maxLag = Math.ceil(rate / MIN_F0);
  const hop = FRAME_HOP / DECIMATION;
  const r = new Float64Array(maxLag - minLag + 1);
  for (let f = 0; f < frames; f++) {
    const at = f * hop;
    if (at + WINDOW + maxLag > n) break;
    let e0 = 0;
    for (let i = 0; i < WINDOW; i++) e0 += x[at + i]! * x[at + i]!;
    if (e0 < 1e-9) continue;
    // Energy of the lagged window, slid along instead of recomputed.
    let eLag = 0;
    for (let i = 0; i < WINDOW; i++) eLag += x[at + minLag + i]! * x[at + minLag + i]!;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0;
      for (let i = 0; i < WINDOW; i++) c += x[at + i]! * x[at + i + lag]!;
      r[lag - minLag] = c / Math.sqrt(e0 * eLag + 1e-20);
      eLag += x[at + lag + WINDOW]! ** 2 - x[at + lag]! ** 2;
    }
    let best = 0;
    for (const v of r) best = Math.max(best, v);
    if (best < VOICING) continue;
    // A periodic signal correlates as well at two and three periods as at one: take the
    // shortest lag whose peak comes close to the best, not the best itself (octave errors).
    for (let k = 1; k < r.length - 1; k++) {
      if (r[k]! >= OCTAVE_TOLERANCE * best && r[k]! >= r[k - 1]! && r[k]! >= r[k + 1]!) {
        f0[f] = rate / (minLag + k);
        break;
      }
    }
  }
  return f0;
}
