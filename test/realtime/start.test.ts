import { describe, expect, it } from 'vitest';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { StreamingRecognizer } from '../../src/engines/types.js';
import { engineQueryOf } from '../../src/realtime/ports.js';
import { type EngineQuery, validateStart } from '../../src/realtime/start.js';

// The validator asks engines through a port; here English and German speech, en->de/fr text.
// Refusals come from a real registry over recognizers that only declare capabilities.
const recognizer = (id: string, languages: string[], diarization: boolean): StreamingRecognizer => ({
  id,
  kind: 'streaming-stt',
  tier: 'builtin',
  capabilities: { languages, streaming: true, interimResults: true, diarization },
  open: () => Promise.reject(new Error('not opened in validation tests')),
});
const speakers = engineQueryOf(
  EngineRegistry.fromEngines([recognizer('test/en-de', ['en', 'de'], false), recognizer('test/fr-speakers', ['fr'], true)]),
);
const engines: EngineQuery = {
  transcriptionLanguages: () => ['de', 'en'],
  servesTranscription: (l) => ['en', 'de'].includes(l),
  streamingRefusal: speakers.streamingRefusal,
  translationTargets: (from) => (from === 'en' ? ['de', 'fr'] : []),
  servesTranslation: (from, to) => from === 'en' && ['de', 'fr'].includes(to),
};

const base = { type: 'transcribe', transcription_languages: ['en'] };
const reject = (data: Record<string, unknown>) => {
  const r = validateStart({ ...base, ...data }, engines);
  if (r.ok) throw new Error('expected a rejection');
  return { code: r.error.code, details: r.error.details, message: r.error.message };
};

describe('start validation', () => {
  it('accepts a minimal transcribe start with defaults', () => {
    const r = validateStart(base, engines);
    expect(r.ok && r.start).toMatchObject({
      type: 'transcribe',
      transcriptionLanguages: ['en'],
      audioFormat: 'pcm',
      profanityHandling: 'mask',
      recognitionMode: 'single',
    });
  });

  it('rejects broadcast without its token, unknown types, and a conversation without two sides', () => {
    expect(reject({ type: 'conversation' })).toMatchObject({
      code: 'conversation_invalid_speaker',
      details: { field: 'transcription_languages', received: 1 },
    });
    expect(reject({ type: 'broadcast' })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'type', valid_values: ['transcribe', 'conversation', 'record'] },
    });
    expect(reject({ type: 'broadcast' }).details).toMatchObject({ field: 'type' });
    expect(reject({ type: 'Transcribe' })).toMatchObject({ code: 'invalid_parameter', details: { field: 'type' } });
  });

  it('multi_language: refused (invalid_recognition_mode naming what is missing) unless one recognizer serves every language and tells them apart', () => {
    // en and de are each served, but no recognizer detects the language: never a guessed label.
    const r = reject({ recognition_mode: 'multi_language', transcription_languages: ['en', 'de'] });
    expect(r.code).toBe('invalid_recognition_mode');
    expect(r.message).toBe('No streaming recognizer here serves en and de with interim results and language detection.');
    expect(r.details).toMatchObject({
      field: 'recognition_mode',
      languages: ['en', 'de'],
      engine_kind: 'streaming-stt',
      missing: ['language_detection'],
      valid_values: ['single'],
    });
    // One language has nothing to tell apart.
    expect(validateStart({ ...base, recognition_mode: 'multi_language' }, engines).ok).toBe(true);
    // A recognizer that detects the language among en and de.
    const detecting = engineQueryOf(
      EngineRegistry.fromEngines([
        {
          ...recognizer('test/detector', ['en', 'de'], false),
          capabilities: { languages: ['en', 'de'], streaming: true, interimResults: true, languageDetection: true },
        },
      ]),
    );
    const withDetection: EngineQuery = { ...engines, streamingRefusal: detecting.streamingRefusal };
    const ok = validateStart({ ...base, recognition_mode: 'multi_language', transcription_languages: ['en', 'de'] }, withDetection);
    expect(ok.ok && ok.start).toMatchObject({ recognitionMode: 'multi_language', transcriptionLanguages: ['en', 'de'] });
    // Every language must reach every translation target (any utterance may be in any of them).
    const noDeFr = validateStart(
      { ...base, recognition_mode: 'multi_language', transcription_languages: ['en', 'de'], translation_languages: ['fr'] },
      withDetection,
    );
    expect(!noDeFr.ok && noDeFr.error).toMatchObject({ code: 'invalid_parameter', details: { field: 'translation_languages' } });
    expect(!noDeFr.ok && noDeFr.error.message).toMatch(/de to "fr"/);
    // A conversation recognizes each speaker in its own language.
    expect(reject({ type: 'conversation', recognition_mode: 'multi_language', transcription_languages: ['en', 'de'] })).toMatchObject({
      code: 'invalid_recognition_mode',
      details: { field: 'recognition_mode' },
    });
  });

  it('multi_speaker names what no recognizer here serves, never falls back to single', () => {
    const r = reject({ recognition_mode: 'multi_speaker', transcription_languages: ['de'] });
    expect(r.code).toBe('diarization_unavailable');
    expect(r.message).toBe('No streaming recognizer here serves de with diarization.');
    expect(r.details).toMatchObject({
      field: 'recognition_mode',
      language: 'de',
      engine_kind: 'streaming-stt',
      missing: ['diarization'],
    });
    // A language with no recognizer at all: missing says the language.
    const fr = validateStart(
      { ...base, recognition_mode: 'multi_speaker', transcription_languages: ['ja'] },
      { ...engines, servesTranscription: () => true },
    );
    expect(!fr.ok && fr.error.details).toMatchObject({ missing: ['language'] });
    expect(reject({ recognition_mode: 'multi_speaker', transcription_languages: ['en', 'de'] })).toMatchObject({
      code: 'diarization_multilang_conflict',
      details: { field: 'transcription_languages', max: 1, received: 2 },
    });
  });

  it('multi_speaker served (recognizer with diarization, or a live diarizer beside it) starts in that mode', () => {
    const ok = { ...engines, servesTranscription: (l: string) => l === 'fr' };
    const r = validateStart({ ...base, recognition_mode: 'multi_speaker', transcription_languages: ['fr'] }, ok);
    expect(r.ok && r.start.recognitionMode).toBe('multi_speaker');
  });

  it('case-sensitive lists give field and valid_values', () => {
    expect(reject({ options: { profanity_handling: 'MASK' } }).details).toEqual({
      field: 'options.profanity_handling',
      valid_values: ['mask', 'remove', 'show'],
    });
    expect(reject({ audio_format: 'mp3' })).toMatchObject({
      code: 'audio_format_unsupported',
      details: { field: 'audio_format', valid_values: ['pcm', 'webm'] },
    });
    expect(reject({ tts_mode: 'Sync' }).details).toEqual({ field: 'tts_mode', valid_values: ['sync', 'async'] });
    expect(reject({ broadcast_token: 'x' }).details).toEqual({ field: 'broadcast_token' });
  });

  it('name max 60 after trimming, summary_language max 20', () => {
    expect(validateStart({ ...base, name: `  ${'a'.repeat(60)}  ` }, engines).ok).toBe(true);
    expect(reject({ name: 'a'.repeat(61) }).details).toEqual({ field: 'name' });
    expect(reject({ summary_language: 'x'.repeat(21) }).details).toEqual({ field: 'summary_language' });
  });

  it('too_many_languages carries max and received', () => {
    const langs = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'pl', 'cs', 'ja'];
    expect(reject({ transcription_languages: langs })).toMatchObject({ code: 'too_many_languages', details: { max: 10, received: 11 } });
    const r = validateStart({ ...base, transcription_languages: ['en', 'de'] }, engines, 1);
    expect(!r.ok && r.error.details).toEqual({ max: 1, received: 2 });
  });

  it('languages no engine serves name the field and list what is served', () => {
    expect(reject({ transcription_languages: ['fi'] })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'transcription_languages', valid_values: ['de', 'en'] },
    });
    expect(reject({ translation_languages: ['ja'] })).toMatchObject({
      details: { field: 'translation_languages', valid_values: ['de', 'fr'] },
    });
    expect(reject({ transcription_languages: [] }).details).toMatchObject({ field: 'transcription_languages' });
    expect(validateStart({ ...base, translation_languages: ['de', 'fr'] }, engines).ok).toBe(true);
  });

  it('record type restrictions', () => {
    expect(reject({ type: 'record', translation_languages: ['de'] }).code).toBe('record_translation_not_allowed');
    expect(reject({ type: 'record', tts_enabled: true }).code).toBe('record_tts_not_allowed');
    expect(reject({ type: 'record', summary_language: 'en' }).code).toBe('record_summary_requires_template');
    expect(validateStart({ ...base, type: 'record', summary_template: 'summary', summary_language: 'en' }, engines).ok).toBe(true);
  });

  it('summary fields must match the mode; whitespace-only prompts are absent', () => {
    expect(reject({ summary_mode: 'custom', summary_prompt: 'Sum up', summary_prompt_slug: '   ' }).code).toBe(
      'summary_mode_field_mismatch',
    );
    expect(reject({ summary_prompt: 'Sum up' }).code).toBe('summary_mode_field_mismatch');
    expect(reject({ summary_mode: 'custom', summary_template: 'summary', summary_prompt: 'p', summary_prompt_slug: 's' }).code).toBe(
      'summary_mode_field_mismatch',
    );
    expect(validateStart({ ...base, summary_prompt: '  ', summary_prompt_slug: '\t' }, engines).ok).toBe(true);
    const r = validateStart({ ...base, summary_mode: 'custom', summary_prompt: 'p', summary_prompt_slug: 's' }, engines);
    expect(r.ok && r.start.summary).toMatchObject({ mode: 'custom', prompt: 'p', promptSlug: 's' });
  });

  it('glossary fields in start are ignored with a warning', () => {
    const r = validateStart({ ...base, glossary: { terms: [] } }, engines);
    expect(r.ok && r.warnings.map((w) => w.code)).toEqual(['config_ignored_in_start']);
  });
});
