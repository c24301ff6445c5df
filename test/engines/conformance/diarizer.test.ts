/** Conformance of every diarizer: two speakers in the stereo recording mixed to mono, one in jfk. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import type { Diarizer, PcmAudio, SpeechSegment, VoiceActivityDetector } from '../../../src/engines/types.js';
import { haveSharedAudio, JFK, STEREO } from '../../support/audio.js';
import { diarizationAccuracy } from '../../support/diarization.js';
import { engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MIN_DIARIZATION_ACCURACY } from './quality.js';

const set = await engineSet<Diarizer>('diarizer');
const ff = { ffmpegPath: 'ffmpeg' };
let mono: PcmAudio;
let jfk: PcmAudio;
let reference: SpeechSegment[][];
beforeAll(async () => {
  if (!haveSharedAudio()) return;
  const vads = await engineSet<VoiceActivityDetector>('vad');
  const vad = vads.engines[0]!;
  mono = await decodeToPcm(STEREO, ff);
  jfk = await decodeToPcm(JFK, ff);
  reference = [
    await vad.segments(await decodeToPcm(STEREO, { ...ff, channel: 0 })),
    await vad.segments(await decodeToPcm(STEREO, { ...ff, channel: 1 })),
  ];
  await vads.close();
});
afterAll(() => set.close());

if (haveSharedAudio())
  forEachEngine(set, (engine) => {
    it('two speakers: ids "1", "2" in order of appearance, turns ordered within the audio, accuracy under its limit', async () => {
      const turns = await engine.diarize(mono);
      expect(new Set(turns.map((t) => t.speakerId))).toEqual(new Set(['1', '2']));
      expect(turns[0]!.speakerId).toBe('1');
      for (const [i, t] of turns.entries()) {
        expect(t.endMs).toBeGreaterThan(t.startMs);
        if (i > 0) expect(t.startMs).toBeGreaterThanOrEqual(turns[i - 1]!.startMs);
      }
      expect(turns.at(-1)!.endMs).toBeLessThanOrEqual(mono.samples.length / 16 + 50);
      expect(diarizationAccuracy(turns, reference, 5000)).toBeGreaterThanOrEqual(limit(MIN_DIARIZATION_ACCURACY, engine.id));
    }, 60_000);

    it('one speaker stays one speaker', async () => {
      expect(new Set((await engine.diarize(jfk)).map((t) => t.speakerId)).size).toBe(1);
    }, 60_000);

    it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
      const ac = new AbortController();
      ac.abort();
      expect(isAbortOrEngineError(await rejection(engine.diarize(jfk, { signal: ac.signal })))).toBe(true);
    });
  });
