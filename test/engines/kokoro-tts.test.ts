/**
 * neural/kokoro-tts without the model (the engine itself runs in test/tts/japanese-voice.test.ts
 * and the tts conformance suite): its voice names, the host's word spans turned into boundaries
 * of the text (code points to UTF-16 offsets), and why it is unavailable.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { KOKORO_MODEL, kokoroTtsFactory, kokoroVoice, wordsToBoundaries } from '../../src/engines/neural/kokoro-tts.js';
import { createLogger } from '../../src/platform/logging.js';

const ctx = (env: Record<string, string>, modelsDir = '/nowhere') => ({
  config: loadConfig(env),
  modelsDir,
  logger: createLogger('silent'),
  loaded: [],
});

describe('Kokoro voices and boundaries', () => {
  it('names voices after the publisher ids, gender from jf/jm', () => {
    expect(kokoroVoice('jf_alpha', 'ja-JP', true)).toEqual({
      voice_name: 'kokoro-jf-alpha',
      display_name: 'Japanese Alpha (neural)',
      gender: 'Female',
      is_default: true,
      language: 'ja-JP',
    });
    expect(kokoroVoice('jm_kumo', 'ja', false)).toMatchObject({ voice_name: 'kokoro-jm-kumo', gender: 'Male', is_default: false });
  });

  it('turns code-point spans into UTF-16 spans of the text, times into ms within the audio', () => {
    const text = '🙂会議は、午後';
    const words = [
      { offset: 1, length: 2, start: 0.05, end: 0.45 },
      { offset: 3, length: 1, start: 0.45, end: 0.6 },
      { offset: 5, length: 2, start: 0.8, end: 2.5 }, // ends past the audio: clipped
      { offset: 9, length: 1, start: 2.5, end: 2.6 }, // outside the text: dropped
    ];
    expect(wordsToBoundaries(text, words, 1200)).toEqual([
      { offset_ms: 50, duration_ms: 400, text: '会議', text_offset: 2, word_length: 2 },
      { offset_ms: 450, duration_ms: 150, text: 'は', text_offset: 4, word_length: 1 },
      { offset_ms: 800, duration_ms: 400, text: '午後', text_offset: 6, word_length: 2 },
    ]);
  });
});

describe('neural/kokoro-tts availability', () => {
  it('is off with PARLEY_JAPANESE_TTS=off or PARLEY_NEURAL_TTS=off', async () => {
    expect(await kokoroTtsFactory.create(ctx({ PARLEY_JAPANESE_TTS: 'off' }))).toEqual({ unavailable: 'PARLEY_JAPANESE_TTS=off' });
    expect(await kokoroTtsFactory.create(ctx({ PARLEY_NEURAL_TTS: 'off' }))).toEqual({ unavailable: 'PARLEY_NEURAL_TTS=off' });
  });

  it('says what is missing: the model, the engine host environment, a model file', async () => {
    expect(await kokoroTtsFactory.create(ctx({}))).toEqual({
      unavailable: `model ${KOKORO_MODEL} not downloaded; run npm run -s models -- pull ${KOKORO_MODEL}`,
    });
    const models = mkdtempSync(join(tmpdir(), 'parley-kokoro-'));
    mkdirSync(join(models, KOKORO_MODEL));
    writeFileSync(join(models, 'models.lock.json'), JSON.stringify({ [KOKORO_MODEL]: { files: {} } }));
    const noVenv = await kokoroTtsFactory.create(ctx({ PARLEY_ENGINE_HOST_PYTHON: '/nowhere/python' }, models));
    expect(noVenv).toEqual({ unavailable: 'no engine-host environment at /nowhere/python (npm run setup creates it)' });
    const partial = await kokoroTtsFactory.create(ctx({ PARLEY_ENGINE_HOST_PYTHON: process.execPath }, models));
    expect(partial).toEqual({
      unavailable: `no kokoro-v1.0.int8.onnx in ${join(models, KOKORO_MODEL)} (npm run setup installs the Japanese voice)`,
    });
  });
});
