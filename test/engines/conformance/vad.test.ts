/** Conformance of every voice activity detector: file segments and stream events on the same audio. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import type { PcmAudio, SpeechSegment, VoiceActivityDetector } from '../../../src/engines/types.js';
import { haveSharedAudio, JFK } from '../../support/audio.js';
import { engineSet, forEachEngine } from './engines.js';

const set = await engineSet<VoiceActivityDetector>('vad');
let jfk: PcmAudio;
beforeAll(async () => {
  jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
});
afterAll(() => set.close());

function checkOrdered(segs: SpeechSegment[], durationMs: number) {
  let lastEnd = 0;
  for (const s of segs) {
    expect(s.startMs).toBeGreaterThanOrEqual(lastEnd);
    expect(s.endMs).toBeGreaterThan(s.startMs);
    expect(s.endMs).toBeLessThanOrEqual(durationMs + 50);
    lastEnd = s.endMs;
  }
}

if (haveSharedAudio())
  forEachEngine(set, (engine) => {
    it('jfk: ordered, non-overlapping segments covering its speech (0.3-10.6 s)', async () => {
      const segs = await engine.segments(jfk);
      expect(segs.length).toBeGreaterThan(0);
      checkOrdered(segs, 11_000);
      expect(segs[0]!.startMs).toBeLessThan(1000);
      expect(segs.at(-1)!.endMs).toBeGreaterThan(9500);
      const speechMs = segs.reduce((a, s) => a + s.endMs - s.startMs, 0);
      expect(speechMs).toBeGreaterThan(4000);
      expect(speechMs).toBeLessThan(10_500);
    });

    it('silence has no speech', async () => {
      expect(await engine.segments({ sampleRate: 16000, samples: new Float32Array(16000 * 2) })).toEqual([]);
    });

    it('a stream gives alternating start/end events in time order, matching the file segments', async () => {
      const file = await engine.segments(jfk);
      const stream = engine.openStream();
      const events = [];
      for (let i = 0; i < jfk.samples.length; i += 1000) events.push(...stream.write(jfk.samples.subarray(i, i + 1000)));
      events.push(...stream.flush());
      expect(events.map((e) => e.type)).toEqual(events.map((_, i) => (i % 2 ? 'speech_end' : 'speech_start')));
      for (let i = 1; i < events.length; i++) expect(events[i]!.atMs).toBeGreaterThanOrEqual(events[i - 1]!.atMs);
      const ends = events.filter((e) => e.type === 'speech_end').map((e) => e.atMs);
      expect(ends.length).toBe(file.length);
      for (const [i, s] of file.entries()) expect(Math.abs(ends[i]! - s.endMs)).toBeLessThan(300);
      expect(stream.flush()).toEqual([]); // flushing twice adds nothing
    });
  });
