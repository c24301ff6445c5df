import type { PcmAudio, PcmSource } from '../types.js';

/** Audio in memory seen as a source (reads are views, not copies). */
export function pcmSourceOf(input: PcmAudio | PcmSource): PcmSource {
  if ('read' in input) return input;
  const { sampleRate, samples } = input;
  const perMs = sampleRate / 1000;
  return {
    sampleRate,
    durationMs: samples.length / perMs,
    read: (startMs, lengthMs) => {
      const from = Math.min(samples.length, Math.round(startMs * perMs));
      return { sampleRate, samples: samples.subarray(from, Math.min(samples.length, from + Math.round(lengthMs * perMs))) };
    },
  };
}
