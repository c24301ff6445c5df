/**
 * neural/whisper on real recorded speech in other languages (test/support/speech.ts: Asterisk's
 * Spanish and French prompts, whole sentences by native voices, fetched from Debian), as a
 * file: the language is told over every language the model serves and among a session's
 * candidates, and the transcript is scored against the prompts' own transcripts.
 * Live recognition of the same clips: test/realtime/whisper-languages.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWhisperLanguageId, type WhisperRecognizer, whisperFactory } from '../../src/engines/neural/whisper.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';
import { type SpeechLanguage, speechClip } from '../support/speech.js';
import { whisperContext, whisperMissing } from '../support/whisper.js';

const missing = whisperMissing();

/** WER of Whisper base on each clip (docs/whisper.md, "Other languages": measured es 11.4 %, fr 15.1 %; telephone prompts). */
const MAX_WER: Record<SpeechLanguage, number> = { es: 0.15, fr: 0.2 };

describe.skipIf(missing !== null)('neural/whisper on real Spanish and French speech (files)', () => {
  let whisper: WhisperRecognizer & { close(): Promise<void> };
  beforeAll(async () => {
    const created = await whisperFactory.create(whisperContext());
    if ('unavailable' in created) throw new Error(created.unavailable);
    whisper = created as typeof whisper;
  }, 180_000);
  afterAll(() => whisper?.close());

  for (const language of ['es', 'fr'] as const) {
    it(`${language}: the language is told over all 99 and among the session's candidates, and the text is right`, async () => {
      const clip = speechClip(language);
      // Spoken-language identification alone, nothing to choose from: the model's whole list.
      const lid = createWhisperLanguageId(whisper);
      const guesses = await lid.identify(clip.audio);
      expect(guesses[0]?.language).toBe(language);
      expect(guesses[0]!.confidence).toBeGreaterThan(0.8);

      // A file recognized with candidates (English first, the fallback): recognized in the one spoken.
      const t = await whisper.transcribe(clip.audio, { language: 'en-US', languages: ['en-US', 'de-DE', 'es-ES', 'fr-FR'] });
      expect(t.language).toBe(clip.tag);
      expect(wordErrorRate(clip.text, t.text), t.text).toBeLessThanOrEqual(MAX_WER[language]);
      // Word times inside the clip, in order.
      const words = t.segments.flatMap((s) => s.words);
      expect(words.length).toBeGreaterThanOrEqual(clip.text.split(/\s+/).length * 0.8);
      for (let i = 1; i < words.length; i++) expect(words[i]!.startMs).toBeGreaterThanOrEqual(words[i - 1]!.startMs);
      expect(words.at(-1)!.endMs).toBeLessThanOrEqual(clip.audio.samples.length / 16 + 500);
    }, 180_000);
  }
});
