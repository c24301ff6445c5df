/**
 * silero VAD streaming on real speech: the live stream (used for STT endpoints) must agree
 * with whole-file segmentation, whatever the chunk size a client sends.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import type { PcmAudio, SpeechSegment, VadEvent, VoiceActivityDetector } from '../../src/engines/types.js';
import { haveSharedAudio, JFK } from '../support/audio.js';

function streamSegments(vad: VoiceActivityDetector, audio: PcmAudio, chunk: number): { events: VadEvent[]; segments: SpeechSegment[] } {
  const s = vad.openStream();
  const events: VadEvent[] = [];
  for (let i = 0; i < audio.samples.length; i += chunk) events.push(...s.write(audio.samples.subarray(i, i + chunk)));
  events.push(...s.flush());
  const segments: SpeechSegment[] = [];
  for (const e of events) {
    if (e.type === 'speech_start') segments.push({ startMs: e.atMs, endMs: -1 });
    else segments[segments.length - 1]!.endMs = e.atMs;
  }
  return { events, segments };
}

/** Milliseconds covered by both segment lists. */
function overlapMs(a: SpeechSegment[], b: SpeechSegment[]): number {
  let t = 0;
  for (const x of a) for (const y of b) t += Math.max(0, Math.min(x.endMs, y.endMs) - Math.max(x.startMs, y.startMs));
  return t;
}

const total = (segs: SpeechSegment[]) => segs.reduce((a, s) => a + s.endMs - s.startMs, 0);

describe.skipIf(!haveSharedAudio())('silero VAD stream on real speech', () => {
  let vad: VoiceActivityDetector;
  let jfk: PcmAudio;
  beforeAll(async () => {
    vad = (await sileroVadFactory.create({} as never)) as VoiceActivityDetector;
    jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
  });

  it.each([160, 1600, 4000])(
    'events alternate start/end in time order and match whole-file segments (chunks of %i samples)',
    async (chunk) => {
      const { events, segments } = streamSegments(vad, jfk, chunk);
      expect(events.length).toBeGreaterThanOrEqual(4);
      for (const [i, e] of events.entries()) expect(e.type).toBe(i % 2 === 0 ? 'speech_start' : 'speech_end');
      for (let i = 1; i < events.length; i++) expect(events[i]!.atMs).toBeGreaterThanOrEqual(events[i - 1]!.atMs);
      const batch = await vad.segments(jfk);
      // Same speech: a live start is reported when silero detects it (its onset is estimated,
      // ~0.1 s late per segment), so 89.9 % of the file's speech time is shared on jfk.
      expect(overlapMs(segments, batch) / total(batch)).toBeGreaterThanOrEqual(0.85);
      expect(segments[segments.length - 1]!.endMs).toBeLessThanOrEqual(11_100);
    },
  );

  it('silence gives no events; speech after silence starts near its onset', async () => {
    const silence = vad.openStream();
    expect([...silence.write(new Float32Array(16000 * 2)), ...silence.flush()]).toEqual([]);
    const padded = new Float32Array(16000 * 2 + jfk.samples.length);
    padded.set(jfk.samples, 16000 * 2);
    const { segments } = streamSegments(vad, { sampleRate: 16000, samples: padded }, 1600);
    const first = (await vad.segments(jfk))[0]!;
    expect(Math.abs(segments[0]!.startMs - (2000 + first.startMs))).toBeLessThan(300);
  });
});
