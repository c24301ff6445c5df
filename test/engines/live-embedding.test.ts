/**
 * The clustering of the neural live diarizer (src/engines/neural/live-embedding.ts) on an
 * embedder whose answer is known: each "voice" is a tone whose loudness sets the direction of its
 * embedding, so which pieces are alike is decided by the test, and the diarizer's rules (new
 * speaker only from a long enough piece, tentative short pieces, corrections once, bounded
 * memory, cuts inside an utterance) can be checked exactly. The real CAM++ model is tested by
 * test/engines/conformance/live-diarizer.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { EmbeddingLiveDiarizer } from '../../src/engines/neural/live-embedding.js';
import { splitAtEmbeddingChanges } from '../../src/engines/neural/speaker-changes.js';

/** Voices by amplitude: 0.1 -> angle 0, 0.2 -> 90 degrees, 0.3 -> 180 degrees (opposite). */
function embed(samples: Float32Array): Float32Array {
  let s = 0;
  for (const x of samples) s += Math.abs(x);
  const angle = ((s / samples.length - 0.1) / 0.1) * (Math.PI / 2);
  const v = new Float32Array(8);
  v[0] = Math.cos(angle);
  v[1] = Math.sin(angle);
  return v;
}

const tone = (amplitude: number, ms: number) =>
  Int16Array.from({ length: ms * 16 }, (_, i) => Math.round((i % 2 ? 1 : -1) * amplitude * 32767));
const silence = (ms: number) => new Int16Array(ms * 16);

/** Writes the parts in order and commits each tone as one utterance; returns the commits' speakers. */
function session(d: EmbeddingLiveDiarizer, parts: Array<[number, number]>) {
  let at = 0;
  const commits: string[][] = [];
  for (const [amplitude, ms] of parts) {
    d.write(amplitude ? tone(amplitude, ms) : silence(ms));
    if (amplitude) commits.push(d.commit(at, at + ms).map((p) => p.speakerId));
    at += ms;
  }
  return commits;
}

describe('neural live diarizer: clustering rules', () => {
  it('a new voice founds a speaker only from a long enough piece; a short unlike one is tentative, then corrected once', () => {
    const d = new EmbeddingLiveDiarizer(embed);
    // A 2 s, B 0.8 s (too short to found a speaker: "1" for now), silence, B 2 s ("2").
    expect(
      session(d, [
        [0.1, 2000],
        [0.2, 800],
        [0, 300],
        [0.2, 2000],
      ]),
    ).toEqual([['1'], ['1'], ['2']]);
    expect(d.corrections()).toEqual([{ startMs: 2000, endMs: 2800, speakerId: '2', previousSpeakerId: '1' }]);
    expect(d.corrections()).toEqual([]);
    expect(d.speakers).toBe(2);
  });

  it('too little audio: no piece, and no interim speaker before anyone spoke', () => {
    const d = new EmbeddingLiveDiarizer(embed);
    d.write(tone(0.1, 300));
    expect(d.current(0, 300)).toBeNull();
    expect(d.commit(0, 300)).toEqual([]);
    d.write(tone(0.1, 1500));
    expect(d.current(300, 1800)).toBe('1');
    expect(d.speakers).toBe(0); // an interim teaches nothing
  });

  it('memory stays bounded over a long session of many speakers', () => {
    const d = new EmbeddingLiveDiarizer(embed);
    session(d, [
      [0.1, 2000],
      [0.2, 2000],
    ]);
    const early = d.heldBytes;
    for (let i = 0; i < 200; i++)
      session(d, [
        [i % 2 ? 0.1 : 0.2, 1500],
        [0.3, 600],
      ]);
    expect(d.speakers).toBeLessThanOrEqual(16);
    expect(d.heldBytes).toBeLessThan(early + 16 * 2000);
  });

  it('an utterance holding two voices is cut where they change, each part to its voice', () => {
    const d = new EmbeddingLiveDiarizer(embed);
    session(d, [
      [0.1, 2000],
      [0.2, 2000],
    ]);
    d.write(Int16Array.from([...tone(0.1, 1750), ...tone(0.2, 2250)]));
    expect(d.commit(4000, 8000)).toEqual([
      { startMs: 4000, endMs: 5750, speakerId: '1' },
      { startMs: 5750, endMs: 8000, speakerId: '2' },
    ]);
  });

  it('change points: none inside one voice, one at the change (within a 250 ms hop), none nearer than 1 s to an edge', () => {
    // Windows of 1 s every 250 ms over [0, 4000): voice `a` before `changeMs`, voice `b` after.
    const windows = (a: number, b: number, changeMs: number) =>
      Array.from({ length: 13 }, (_, k) => {
        const at = k * 250;
        const aMs = Math.max(0, Math.min(1000, changeMs - at));
        const samples = Float32Array.from([...tone(a, aMs), ...tone(b, 1000 - aMs)], (x) => x / 32768);
        return { atMs: at, embedding: embed(samples) };
      });
    expect(splitAtEmbeddingChanges(windows(0.1, 0.1, 0), 0, 4000, 0.5)).toEqual([[0, 4000]]);
    const cuts = splitAtEmbeddingChanges(windows(0.1, 0.3, 1600), 0, 4000, 0.5);
    expect(cuts).toHaveLength(2);
    expect(Math.abs(cuts[0]![1] - 1600)).toBeLessThanOrEqual(250);
    // A change 0.5 s from the start: cut no nearer the edge than 1 s (a full window before the point).
    expect(splitAtEmbeddingChanges(windows(0.1, 0.3, 500), 0, 4000, 0.5)).toEqual([
      [0, 1000],
      [1000, 4000],
    ]);
  });

  it('a long utterance never committed keeps memory bounded (audio and windows)', () => {
    const d = new EmbeddingLiveDiarizer(embed);
    d.write(tone(0.1, 2000));
    d.current(0, 2000);
    const early = d.heldBytes;
    for (let ms = 2000; ms < 120_000; ms += 500) {
      d.write(tone(0.1, 500));
      d.current(0, ms + 500);
    }
    // 30 s of audio held at most, so at most 117 windows (counted at 192 dimensions before any speaker is known).
    expect(d.heldBytes).toBeLessThan(early + 120 * (192 * 4 + 64));
    expect(d.heldBytes).toBeGreaterThan(early);
  });
});
