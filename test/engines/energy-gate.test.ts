/**
 * The energy gate beside the VAD (src/engines/streaming/energy-gate.ts): loud sound far above
 * the stream's noise floor starts speech where silero hears none; quiet rooms, breaths and long
 * noise do not keep starting it.
 */
import { describe, expect, it } from 'vitest';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { type EnergyEvent, EnergyGate } from '../../src/engines/streaming/energy-gate.js';
import { haveSharedAudio, JFK } from '../support/audio.js';

const RATE = 16_000;
/** Noise at `db` dBFS RMS for `ms` (uniform white noise, seeded: the same bytes every run). */
function noise(ms: number, db: number, seed = 1): Float32Array {
  const out = new Float32Array((ms * RATE) / 1000);
  const amplitude = 10 ** (db / 20) * Math.sqrt(3); // uniform [-a, a] has RMS a/sqrt(3)
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[i] = (x / 1073741824 - 1) * amplitude;
  }
  return out;
}
const concat = (...parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
/** Writes in 100 ms chunks (a live stream's), collecting the events. */
function run(gate: EnergyGate, samples: Float32Array): EnergyEvent[] {
  const events: EnergyEvent[] = [];
  for (let i = 0; i < samples.length; i += 1600) events.push(...gate.write(samples.subarray(i, i + 1600)));
  return events;
}

describe('EnergyGate', () => {
  it('starts at a loud phrase over a quiet floor (at its first loud frame) and ends after the quiet that follows', () => {
    const gate = new EnergyGate();
    const events = run(gate, concat(noise(2000, -45), noise(400, -12, 7), noise(1000, -45, 3)));
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    expect(events[0]!.atMs).toBeGreaterThanOrEqual(2000);
    expect(events[0]!.atMs).toBeLessThanOrEqual(2040);
    expect(events[1]!.atMs).toBeGreaterThanOrEqual(2380);
    expect(events[1]!.atMs).toBeLessThanOrEqual(2420);
    expect(gate.speaking).toBe(false);
    expect(gate.quietMs).toBeGreaterThanOrEqual(900);
  });

  it('a click shorter than the start time, and sound under -30 dBFS over a silent room, start nothing', () => {
    expect(run(new EnergyGate(), concat(noise(1000, -50), noise(100, -10, 5), noise(1000, -50, 9)))).toEqual([]);
    // A breath 25 dB over a -65 dB room is still quiet in absolute terms.
    expect(run(new EnergyGate(), concat(noise(1000, -65), noise(600, -40, 5), noise(1000, -65, 9)))).toEqual([]);
  });

  it('a long noise lifts the floor: it starts once, then stops counting as loud', () => {
    const gate = new EnergyGate();
    const events = run(gate, concat(noise(1000, -50), noise(30_000, -25, 11)));
    expect(events.filter((e) => e.type === 'speech_start')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('speech_end');
    expect(gate.speaking).toBe(false);
  });

  it('frames split across writes of any size give the same events', () => {
    const signal = concat(noise(1500, -45), noise(500, -12, 7), noise(800, -45, 3));
    const whole = new EnergyGate().write(signal);
    const gate = new EnergyGate();
    const pieces: EnergyEvent[] = [];
    for (let i = 0; i < signal.length; i += 333) pieces.push(...gate.write(signal.subarray(i, i + 333)));
    expect(pieces).toEqual(whole);
  });

  it.skipIf(!haveSharedAudio())('hears jfk\'s shouted "ask not" (3.3-4.2 s), which silero v5 misses', async () => {
    const jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
    const starts = run(new EnergyGate(), jfk.samples)
      .filter((e) => e.type === 'speech_start')
      .map((e) => e.atMs);
    expect(starts.some((ms) => ms >= 3200 && ms <= 3500)).toBe(true);
  });
});
