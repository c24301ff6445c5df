/**
 * Conformance of every synthesizer, in English, or in Japanese for one that speaks Japanese and
 * not English (neural/kokoro-tts): voices, MP3 that decodes to the reported duration, word
 * boundaries that index the text, the per-sentence stream, typed errors, and intelligibility
 * (English recognized back by PocketSphinx, scored by WER; Japanese by Whisper, where it is
 * installed, scored by character error rate, and heard as Japanese).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import { espeakFactory } from '../../../src/engines/builtin/espeak.js';
import { pocketsphinxFileFactory } from '../../../src/engines/builtin/pocketsphinx/index.js';
import { EngineError } from '../../../src/engines/errors.js';
import { whisperFactory } from '../../../src/engines/neural/whisper.js';
import { characterErrorRate, wordErrorRate } from '../../../src/engines/quality/wer.js';
import { synthesisStream } from '../../../src/engines/tts-stream.js';
import type { FileRecognizer, SynthesisChunk, Synthesizer, WordBoundary } from '../../../src/engines/types.js';
import { engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MAX_WER } from './quality.js';

/** What an engine is checked with: two sentences in a language it speaks, and how its speech is scored. */
interface Sample {
  language: string;
  text: string;
  /** Where the second sentence starts. */
  second: number;
  score: (reference: string, heard: string) => number;
}
const TEXT = 'Ask not what your country can do for you. Ask what you can do for your country.';
const JA_TEXT = '会議は午後から始まります。資料を準備してください。';
const SAMPLES: Sample[] = [
  { language: 'en-US', text: TEXT, second: TEXT.indexOf('Ask what'), score: wordErrorRate },
  { language: 'ja-JP', text: JA_TEXT, second: JA_TEXT.indexOf('資料'), score: characterErrorRate },
];
/** English where the engine speaks it, else the first sample language it has voices for. */
const sampleFor = (engine: Synthesizer): Sample => SAMPLES.find((s) => engine.voices(s.language).length > 0) ?? SAMPLES[0]!;

const set = await engineSet<Synthesizer>('tts');
const listeners: Record<string, FileRecognizer | undefined> = {};
let backend: Synthesizer | undefined;
beforeAll(async () => {
  // The remote speech API is answered by the real eSpeak behind the local server.
  const espeak = await espeakFactory.create(set.ctx);
  if (!('unavailable' in espeak)) set.server.synthesizer = backend = espeak as Synthesizer;
  const ps = await pocketsphinxFileFactory.create(set.ctx);
  if (!('unavailable' in ps)) listeners['en-US'] = ps as FileRecognizer;
  // Whisper (multilingual) hears Japanese, only where an engine is checked in Japanese.
  if (set.engines.some((e) => sampleFor(e).language === 'ja-JP')) {
    const whisper = await whisperFactory.create(set.ctx);
    if (!('unavailable' in whisper)) listeners['ja-JP'] = whisper as FileRecognizer;
    else if (process.env.PARLEY_TEST_REQUIRE_WHISPER === '1') throw new Error(`PARLEY_TEST_REQUIRE_WHISPER=1 but ${whisper.unavailable}`);
  }
}, 180_000);
afterAll(async () => {
  await backend?.close?.();
  await listeners['ja-JP']?.close?.();
  await set.close();
});

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
  const sample = sampleFor(engine);
  const { language, text } = sample;

  it(`lists ${language} voices with exactly one default`, () => {
    const voices = engine.voices(language);
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.filter((v) => v.is_default)).toHaveLength(1);
    for (const v of voices) expect(['Female', 'Male']).toContain(v.gender);
  });

  it(`speaks ${language}: MP3 of the reported duration, boundaries indexing the text, intelligible`, async () => {
    const r = await engine.synthesize(text, { language });
    const pcm = await decodeToPcm(r.mp3, ff);
    const decodedMs = (pcm.samples.length / pcm.sampleRate) * 1000;
    expect(Math.abs(decodedMs - r.durationMs)).toBeLessThan(Math.max(150, r.durationMs * 0.1));
    checkBoundaries(text, r.boundaries, r.durationMs);
    const listener = listeners[language];
    if (listener) {
      const heard = await listener.transcribe(pcm, { language });
      expect(sample.score(text, heard.text)).toBeLessThan(limit(MAX_WER.tts, engine.id));
    }
  }, 180_000);

  it('streams one decodable MP3 per sentence, on one timeline', async () => {
    const chunks: SynthesisChunk[] = [];
    for await (const c of synthesisStream(engine, text, { language })) chunks.push(c);
    expect(chunks.map((c) => c.textOffset)).toEqual([0, sample.second]);
    let at = 0;
    for (const c of chunks) {
      expect(c.startMs).toBe(at);
      at += c.durationMs;
      const pcm = await decodeToPcm(c.mp3, ff);
      expect(pcm.samples.length).toBeGreaterThan(0);
      checkBoundaries(text, c.boundaries, c.startMs + c.durationMs);
      for (const b of c.boundaries) expect(b.offset_ms).toBeGreaterThanOrEqual(c.startMs);
    }
  }, 180_000);

  it('an unknown language or voice is a typed error (unless it speaks every language)', async () => {
    if (engine.capabilities.languages.includes('*')) return;
    const lang = await rejection(engine.synthesize('Hello.', { language: 'xx' }));
    expect(lang).toBeInstanceOf(EngineError);
    expect((lang as EngineError).code).toBe('tts_invalid_language');
    const voice = await rejection(engine.synthesize(text, { language, voice: 'no-such-voice' }));
    expect((voice as EngineError).code).toBe('tts_voice_not_found');
  });

  it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(isAbortOrEngineError(await rejection(engine.synthesize(text, { language, signal: ac.signal })))).toBe(true);
  });
});
