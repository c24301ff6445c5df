/**
 * Conformance of every synthesizer: voices, MP3 that decodes to the reported duration, word
 * boundaries that index the text, the per-sentence stream, typed errors, and intelligibility
 * (the WER of its English recognized back by PocketSphinx).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import { espeakFactory } from '../../../src/engines/builtin/espeak.js';
import { pocketsphinxFileFactory } from '../../../src/engines/builtin/pocketsphinx/index.js';
import { EngineError } from '../../../src/engines/errors.js';
import { wordErrorRate } from '../../../src/engines/quality/wer.js';
import { synthesisStream } from '../../../src/engines/tts-stream.js';
import type { FileRecognizer, SynthesisChunk, Synthesizer, WordBoundary } from '../../../src/engines/types.js';
import { engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MAX_WER } from './quality.js';

const set = await engineSet<Synthesizer>('tts');
let listener: FileRecognizer | undefined;
let backend: Synthesizer | undefined;
beforeAll(async () => {
  // The remote speech API is answered by the real eSpeak behind the local server.
  const espeak = await espeakFactory.create(set.ctx);
  if (!('unavailable' in espeak)) set.server.synthesizer = backend = espeak as Synthesizer;
  const ps = await pocketsphinxFileFactory.create(set.ctx);
  if (!('unavailable' in ps)) listener = ps as FileRecognizer;
});
afterAll(async () => {
  await backend?.close?.();
  await set.close();
});

const TEXT = 'Ask not what your country can do for you. Ask what you can do for your country.';
const ff = { ffmpegPath: 'ffmpeg' };

function checkBoundaries(text: string, boundaries: WordBoundary[], durationMs: number) {
  expect(boundaries.length).toBeGreaterThan(0);
  for (const [i, b] of boundaries.entries()) {
    expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
    expect(b.offset_ms).toBeGreaterThanOrEqual(0);
    expect(b.offset_ms).toBeLessThanOrEqual(durationMs);
    if (i > 0) expect(b.offset_ms).toBeGreaterThanOrEqual(boundaries[i - 1]!.offset_ms);
  }
}

forEachEngine(set, (engine) => {
  it('lists English voices with exactly one default', () => {
    const voices = engine.voices('en-US');
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.filter((v) => v.is_default)).toHaveLength(1);
    for (const v of voices) expect(['Female', 'Male']).toContain(v.gender);
  });

  it('speaks English: MP3 of the reported duration, boundaries indexing the text, intelligible', async () => {
    const r = await engine.synthesize(TEXT, { language: 'en-US' });
    const pcm = await decodeToPcm(r.mp3, ff);
    const decodedMs = (pcm.samples.length / pcm.sampleRate) * 1000;
    expect(Math.abs(decodedMs - r.durationMs)).toBeLessThan(Math.max(150, r.durationMs * 0.1));
    checkBoundaries(TEXT, r.boundaries, r.durationMs);
    if (listener) {
      const heard = await listener.transcribe(pcm, { language: 'en-US' });
      expect(wordErrorRate(TEXT, heard.text)).toBeLessThan(limit(MAX_WER.tts, engine.id));
    }
  }, 60_000);

  it('streams one decodable MP3 per sentence, on one timeline', async () => {
    const chunks: SynthesisChunk[] = [];
    for await (const c of synthesisStream(engine, TEXT, { language: 'en-US' })) chunks.push(c);
    expect(chunks.map((c) => c.textOffset)).toEqual([0, TEXT.indexOf('Ask what')]);
    let at = 0;
    for (const c of chunks) {
      expect(c.startMs).toBe(at);
      at += c.durationMs;
      const pcm = await decodeToPcm(c.mp3, ff);
      expect(pcm.samples.length).toBeGreaterThan(0);
      checkBoundaries(TEXT, c.boundaries, c.startMs + c.durationMs);
      for (const b of c.boundaries) expect(b.offset_ms).toBeGreaterThanOrEqual(c.startMs);
    }
  }, 60_000);

  it('an unknown language or voice is a typed error (unless it speaks every language)', async () => {
    if (engine.capabilities.languages.includes('*')) return;
    const lang = await rejection(engine.synthesize('Hello.', { language: 'xx' }));
    expect(lang).toBeInstanceOf(EngineError);
    expect((lang as EngineError).code).toBe('tts_invalid_language');
    const voice = await rejection(engine.synthesize('Hello.', { language: 'en-US', voice: 'no-such-voice' }));
    expect((voice as EngineError).code).toBe('tts_voice_not_found');
  });

  it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(isAbortOrEngineError(await rejection(engine.synthesize(TEXT, { language: 'en-US', signal: ac.signal })))).toBe(true);
  });
});
