/**
 * Conformance of every streaming recognizer (true streaming engines and the streaming faces
 * of file recognizers): result order, interim/final rules, times, end/abort idempotent,
 * per-channel labels, WER of the finals under the engine's limit.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import { pocketsphinxFileFactory } from '../../../src/engines/builtin/pocketsphinx/index.js';
import { wordErrorRate } from '../../../src/engines/quality/wer.js';
import { openPerChannel } from '../../../src/engines/streaming/labels.js';
import type { FileRecognizer, PcmAudio, StreamingRecognizer, SttResult } from '../../../src/engines/types.js';
import { haveSharedAudio, JFK, JFK_TEXT, STEREO } from '../../support/audio.js';
import { engineSet, forEachEngine, isAbortOrEngineError } from './engines.js';
import { knownViolation, limit, MAX_WER } from './quality.js';

const set = await engineSet<StreamingRecognizer>('streaming-stt');
let jfk: Int16Array;
beforeAll(async () => {
  jfk = int16(await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' }));
  const backend = await pocketsphinxFileFactory.create(set.ctx);
  if (!('unavailable' in backend)) set.server.recognizer = backend as FileRecognizer;
});
afterAll(() => set.close());

function int16(a: PcmAudio): Int16Array {
  return Int16Array.from(a.samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32767))));
}

const tick = () => new Promise((r) => setTimeout(r, 5));

/** Streams `pcm` in 100 ms chunks; records results, errors and what arrived after end()/abort(). */
async function run(engine: StreamingRecognizer, pcm: Int16Array, interimResults = true) {
  const results: SttResult[] = [];
  const errors: Error[] = [];
  const s = await engine.open({ language: 'en-US', interimResults, onResult: (r) => results.push(r), onError: (e) => errors.push(e) });
  for (let i = 0; i < pcm.length; i += 1600) {
    s.write(pcm.subarray(i, i + 1600));
    await tick();
  }
  await s.end();
  const atEnd = results.length;
  await s.end(); // idempotent
  s.abort(); // after end: a no-op
  s.write(pcm.subarray(0, 1600)); // after end: ignored
  await tick();
  return { results, errors, lateResults: results.length - atEnd };
}

if (haveSharedAudio())
  forEachEngine(set, (engine) => {
    it('jfk: finals under the WER limit, in order, interims only before their final, times monotonic', async () => {
      const { results, errors, lateResults } = await run(engine, jfk);
      expect(errors).toEqual([]);
      expect(lateResults).toBe(0);
      const finals = results.filter((r) => r.isFinal);
      expect(finals.length).toBeGreaterThan(0);
      expect(results.at(-1)?.isFinal).toBe(true);
      expect(wordErrorRate(JFK_TEXT, finals.map((f) => f.text).join(' '))).toBeLessThan(limit(MAX_WER['streaming-stt'], engine.id));
      let lastFinalEnd = 0;
      let lastInterimEnd = 0;
      for (const r of results) {
        expect(r.endMs).toBeGreaterThanOrEqual(r.startMs);
        expect(r.startMs).toBeGreaterThanOrEqual(lastFinalEnd - 50); // nothing goes back before the last final
        expect(r.endMs).toBeLessThanOrEqual(11_100);
        if (r.isFinal) {
          lastFinalEnd = r.endMs;
          lastInterimEnd = 0;
        } else {
          expect(r.endMs).toBeGreaterThanOrEqual(lastInterimEnd);
          lastInterimEnd = r.endMs;
        }
        for (const w of r.words ?? []) expect(w.endMs).toBeGreaterThanOrEqual(w.startMs);
      }
    }, 90_000);

    it('interimResults false gives finals only', async () => {
      const { results } = await run(engine, jfk.subarray(0, 16000 * 3), false);
      expect(results.every((r) => r.isFinal)).toBe(true);
    }, 60_000);

    const violation = knownViolation('streaming-stt', engine.id, 'abort');
    (violation ? it.fails : it)(
      `abort drops everything at once and is idempotent${violation ? ` (known violation: ${violation})` : ''}`,
      async () => {
        const results: SttResult[] = [];
        const s = await engine.open({ language: 'en-US', interimResults: true, onResult: (r) => results.push(r), onError: () => {} });
        s.write(jfk.subarray(0, 16000 * 3));
        s.abort();
        const n = results.length;
        s.abort();
        s.write(jfk.subarray(0, 16000));
        await expect(s.end().catch((e: unknown) => (isAbortOrEngineError(e) ? undefined : e))).resolves.toBeUndefined();
        await new Promise((r) => setTimeout(r, 300));
        expect(results.length).toBe(n);
      },
    );

    it('opened per channel, every result says which channel it belongs to', async () => {
      const left = await decodeToPcm(STEREO, { ffmpegPath: 'ffmpeg', channel: 0 });
      const right = await decodeToPcm(STEREO, { ffmpegPath: 'ffmpeg', channel: 1 });
      const frames = Math.min(left.samples.length, right.samples.length, 16000 * 4);
      const stereo = new Int16Array(frames * 2);
      const [l, r] = [int16(left), int16(right)];
      for (let i = 0; i < frames; i++) [stereo[2 * i], stereo[2 * i + 1]] = [l[i]!, r[i]!];
      const results: SttResult[] = [];
      const options = (speakerId: string) => ({
        language: 'en-US',
        interimResults: false,
        speakerId,
        onResult: (x: SttResult) => results.push(x),
        onError: () => {},
      });
      const streams = await openPerChannel([
        { recognizer: engine, options: options('1') },
        { recognizer: engine, options: options('2') },
      ]);
      for (let i = 0; i < stereo.length; i += 3201) {
        streams.write(stereo.subarray(i, i + 3201)); // odd sizes: frames split across writes
        await tick();
      }
      await streams.end();
      expect(results.length).toBeGreaterThan(0);
      for (const x of results) expect([0, 1]).toContain(x.channel);
      for (const x of results) expect(x.speakerId).toBe(String((x.channel ?? 0) + 1));
    }, 60_000);
  });
