/** Conformance of every file recognizer: same inputs, same contract, WER under its limit. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import { pocketsphinxFileFactory } from '../../../src/engines/builtin/pocketsphinx/index.js';
import { EngineError } from '../../../src/engines/errors.js';
import { wordErrorRate } from '../../../src/engines/quality/wer.js';
import type { FileRecognizer, PcmAudio } from '../../../src/engines/types.js';
import { haveSharedAudio, JFK, JFK_TEXT } from '../../support/audio.js';
import { engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MAX_WER } from './quality.js';

const set = await engineSet<FileRecognizer>('file-stt');
let jfk: PcmAudio;
beforeAll(async () => {
  jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
  // The remote tier is served by the real built-in recognizer behind the local server.
  const backend = await pocketsphinxFileFactory.create(set.ctx);
  if (!('unavailable' in backend)) set.server.recognizer = backend as FileRecognizer;
});
afterAll(() => set.close());

if (haveSharedAudio())
  forEachEngine(set, (engine) => {
    it('jfk: text under the WER limit, segments and words in order within the audio', async () => {
      const t = await engine.transcribe(jfk, { language: 'en-US' });
      expect(wordErrorRate(JFK_TEXT, t.text)).toBeLessThan(limit(MAX_WER['file-stt'], engine.id));
      expect(Math.abs(t.durationMs - 11_000)).toBeLessThan(500);
      expect(typeof t.language).toBe('string');
      expect(t.segments.length).toBeGreaterThan(0);
      let lastStart = 0;
      for (const s of t.segments) {
        expect(s.startMs).toBeGreaterThanOrEqual(lastStart);
        expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
        expect(s.endMs).toBeLessThanOrEqual(t.durationMs + 50);
        lastStart = s.startMs;
      }
      const words = t.segments.flatMap((s) => s.words);
      if (engine.capabilities.wordTimes) expect(words.length).toBeGreaterThan(0);
      for (let i = 1; i < words.length; i++) expect(words[i]!.startMs).toBeGreaterThanOrEqual(words[i - 1]!.startMs);
      for (const w of words) expect(w.endMs).toBeGreaterThanOrEqual(w.startMs);
    }, 90_000);

    it('silence gives an empty or near-empty transcript, not an error', async () => {
      const t = await engine.transcribe({ sampleRate: 16000, samples: new Float32Array(16000 * 2) }, { language: 'en-US' });
      expect(t.text.trim().split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(2);
    });

    it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
      const ac = new AbortController();
      ac.abort();
      const err = await rejection(engine.transcribe(jfk, { language: 'en-US', signal: ac.signal }));
      expect(isAbortOrEngineError(err)).toBe(true);
    });

    it('a failure inside the engine is a typed EngineError with a spec code', async () => {
      // Audio at a rate no recognizer is asked for: the engine refuses or resamples, never crashes untyped.
      const err = await rejection(engine.transcribe({ sampleRate: 8000, samples: jfk.samples.subarray(0, 8000) }, { language: 'en-US' }));
      if (err !== undefined) {
        expect(err).toBeInstanceOf(EngineError);
        expect((err as EngineError).code).toMatch(/^[a-z_]+$/);
      }
    });
  });
