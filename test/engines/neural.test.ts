import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { bundledModelPath } from '../../src/engines/bundled-models.js';
import { findModel } from '../../src/engines/models/catalog.js';
import { pullModel } from '../../src/engines/models/install.js';
import { importLlama, llamaCppFactory, llamaTranslatorFactory, resolveGguf } from '../../src/engines/neural/llama-cpp.js';
import { loadSherpa, modelFolder, requireFiles, sileroVadConfig, speechPieces } from '../../src/engines/neural/sherpa-common.js';
import { flattenOverlaps, numberSpeakers, sherpaDiarizationFactory } from '../../src/engines/neural/sherpa-diarization.js';
import { sherpaLanguageIdFactory } from '../../src/engines/neural/sherpa-language-id.js';
import { offlineModelConfig, sherpaOfflineFactory } from '../../src/engines/neural/sherpa-offline.js';
import { sherpaStreamingFactory, tokensToWords } from '../../src/engines/neural/sherpa-streaming.js';
import { sherpaTtsFactory, ttsModelConfig } from '../../src/engines/neural/sherpa-tts.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { haveSharedAudio, JFK } from '../support/audio.js';

const logger = pino({ level: 'silent' });
const factories = [
  sherpaStreamingFactory,
  sherpaOfflineFactory,
  sherpaDiarizationFactory,
  sherpaLanguageIdFactory,
  sherpaTtsFactory,
  llamaCppFactory,
  llamaTranslatorFactory,
];

/** Installs a fake model folder through the real offline install path (files are placeholders, never loaded). */
async function installFake(modelsDir: string, name: string, files: string[]): Promise<string> {
  const src = join(mkdtempSync(join(tmpdir(), 'parley-fake-')), 'top');
  mkdirSync(src, { recursive: true });
  for (const f of files) writeFileSync(join(src, f), `placeholder ${f}`);
  const archive = join(src, '..', 'a.tar.bz2');
  execFileSync('tar', ['-cjf', archive, '-C', join(src, '..'), basename(src)]);
  const m = findModel(name);
  if (!m) throw new Error(name);
  return (await pullModel(modelsDir, { ...m, format: 'tar.bz2' }, { from: archive })).path;
}

describe('neural engines on a host without models', () => {
  it('are listed but unavailable, each naming the pull command', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'parley-nomodels-'));
    const reg = await EngineRegistry.create({ config: loadConfig({}), modelsDir, logger }, factories);
    const reasons = Object.fromEntries(reg.status.map((s) => [s.id, s.available ? 'AVAILABLE' : s.reason]));
    expect(reasons).toEqual({
      'neural/sherpa-streaming': 'model zipformer-en-2023-06-26 not downloaded; run npm run -s models -- pull zipformer-en-2023-06-26',
      'neural/sherpa-offline':
        'model sense-voice-zh-en-ja-ko-yue not downloaded; run npm run -s models -- pull sense-voice-zh-en-ja-ko-yue',
      'neural/sherpa-diarization':
        'model pyannote-segmentation-3-0 not downloaded; run npm run -s models -- pull pyannote-segmentation-3-0',
      'neural/sherpa-language-id': 'model whisper-tiny not downloaded; run npm run -s models -- pull whisper-tiny',
      'neural/sherpa-tts': 'model piper-en-us-joe-medium not downloaded; run npm run -s models -- pull piper-en-us-joe-medium',
      'neural/llama-cpp': 'model smollm2-135m-instruct-q4 not downloaded; run npm run -s models -- pull smollm2-135m-instruct-q4',
      // The default model is marked weak at translation (docs/summaries.md): no LLM translator from it.
      'neural/llama-translator':
        'smollm2-135m-instruct-q4 translates worse than the built-in engines (docs/summaries.md); a larger PARLEY_LLAMA_MODEL translates',
    });
    expect(reg.find({ kind: 'streaming-stt', language: 'en' })).toBeUndefined();
  });

  it('explain a wrong model setting', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'parley-nomodels-'));
    expect(modelFolder(modelsDir, 'nope', ['tts'])).toEqual({ unavailable: 'unknown model "nope" (see npm run -s models -- list)' });
    expect(modelFolder(modelsDir, 'whisper-tiny', ['tts'])).toEqual({ unavailable: 'model whisper-tiny is a offline-asr model, not tts' });
    expect(resolveGguf(modelsDir, '/no/such.gguf')).toEqual({ unavailable: 'GGUF file /no/such.gguf does not exist' });
    const reg = await EngineRegistry.create({ config: loadConfig({ PARLEY_SHERPA_TTS_MODEL: 'whisper-tiny' }), modelsDir, logger }, [
      sherpaTtsFactory,
    ]);
    expect(reg.status[0]?.reason).toContain('not tts');
  });

  it('llama.cpp: without the optional package the reason names the enable command', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'parley-nomodels-'));
    const gguf = join(modelsDir, 'x.gguf');
    writeFileSync(gguf, 'GGUF');
    const mod = await importLlama(modelsDir);
    expect(mod).toEqual({ unavailable: 'node-llama-cpp is not installed; run npm run -s models -- enable-llama (CPU build only, ~60 MB)' });
    const reg = await EngineRegistry.create({ config: loadConfig({ PARLEY_LLAMA_MODEL: gguf }), modelsDir, logger }, [llamaCppFactory]);
    expect(reg.status[0]?.reason).toContain('enable-llama');
  });
});

describe('model file resolution in installed folders', () => {
  it('finds a streaming zipformer transducer, preferring int8 files', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const dir = await installFake(modelsDir, 'zipformer-en-2023-06-26', [
      'encoder-epoch-99-avg-1-chunk-16-left-128.onnx',
      'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
      'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      'joiner-epoch-99-avg-1-chunk-16-left-128.onnx',
      'tokens.txt',
    ]);
    expect(modelFolder(modelsDir, 'zipformer-en-2023-06-26', ['streaming-asr'])).toBe(dir);
    const files = requireFiles(dir, {
      encoder: /^encoder.*\.onnx$/,
      decoder: /^decoder.*\.onnx$/,
      joiner: /^joiner.*\.onnx$/,
      tokens: /^tokens\.txt$/,
    });
    expect(files).toEqual({
      encoder: join(dir, 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx'),
      decoder: join(dir, 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx'),
      joiner: join(dir, 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx'),
      tokens: join(dir, 'tokens.txt'),
    });
    expect(requireFiles(dir, { bpe: /^bpe\.model$/ })).toEqual({
      unavailable: `no file matching /^bpe\\.model$/ in ${dir}; re-run models pull`,
    });
  });

  it('tells Whisper, SenseVoice and paraformer folders apart; Piper vs Kokoro TTS', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const whisper = await installFake(modelsDir, 'whisper-tiny', ['tiny-encoder.int8.onnx', 'tiny-decoder.int8.onnx', 'tiny-tokens.txt']);
    expect(offlineModelConfig(whisper, 2, 'de-DE')).toMatchObject({
      family: 'whisper',
      config: { whisper: { language: 'de', task: 'transcribe' } },
    });
    const sense = await installFake(modelsDir, 'sense-voice-zh-en-ja-ko-yue', ['model.int8.onnx', 'model.onnx', 'tokens.txt']);
    expect(offlineModelConfig(sense, 2)).toMatchObject({
      family: 'sense-voice',
      config: { senseVoice: { model: join(sense, 'model.int8.onnx'), language: 'auto' } },
    });
    const piper = await installFake(modelsDir, 'piper-en-us-amy-low', ['en_US-amy-low.onnx', 'tokens.txt']);
    expect(ttsModelConfig(piper, 1)).toMatchObject({ config: { model: { vits: { model: join(piper, 'en_US-amy-low.onnx') } } } });
    const kokoro = await installFake(modelsDir, 'kokoro-multi-lang-v1_0', ['model.onnx', 'voices.bin', 'tokens.txt']);
    expect(ttsModelConfig(kokoro, 1)).toMatchObject({ config: { model: { kokoro: { voices: join(kokoro, 'voices.bin') } } } });
  });
});

describe('result shaping', () => {
  it('joins BPE tokens into timed words', () => {
    const words = tokensToWords([' AND', ' SO', ' MY', ' FEL', 'LOW'], [0.1, 0.4, 0.6, 0.8, 1.0], 1000, 2500);
    expect(words.map((w) => [w.text, w.startMs, w.endMs])).toEqual([
      ['AND', 1100, 1399],
      ['SO', 1400, 1599],
      ['MY', 1600, 1799],
      ['FELLOW', 1800, 2500],
    ]);
  });

  it('numbers speakers in order of first appearance', () => {
    expect(
      numberSpeakers([
        { start: 2, end: 3, speaker: 0 },
        { start: 0, end: 1.5, speaker: 3 },
        { start: 4, end: 5, speaker: 3 },
      ]).map((t) => t.speakerId),
    ).toEqual(['1', '2', '1']);
  });

  it('flattens overlapped speech to one speaker a moment: the voice that came in holds the overlap', () => {
    // What sherpa-onnx returns for stereo_diarization mixed to mono: one voice throughout, the other inside it.
    expect(
      flattenOverlaps([
        { start: 0.03, end: 4.6, speaker: 0 },
        { start: 0.28, end: 2.38, speaker: 1 },
        { start: 5, end: 6, speaker: 0 },
      ]),
    ).toEqual([
      { start: 0.03, end: 0.28, speaker: 0 },
      { start: 0.28, end: 2.38, speaker: 1 },
      { start: 2.38, end: 4.6, speaker: 0 },
      { start: 5, end: 6, speaker: 0 },
    ]);
  });
});

describe.skipIf(!haveSharedAudio())('silero VAD through sherpa-onnx (shared helpers)', () => {
  it('the shared VAD config detects speech in JFK, and long audio is cut into timed pieces', async () => {
    const sherpa = loadSherpa();
    const jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
    const vad = new sherpa.Vad(sileroVadConfig(1, bundledModelPath('silero_vad_v5.onnx')), 30);
    let detected = false;
    for (let i = 0; i < jfk.samples.length; i += 512) {
      vad.acceptWaveform(jfk.samples.subarray(i, i + 512));
      detected ||= vad.isDetected();
    }
    expect(detected).toBe(true);
    // Three copies separated by 2 s of silence: longer than one Whisper window, so it is cut.
    const gap = new Float32Array(32000);
    const long = new Float32Array(jfk.samples.length * 3 + gap.length * 2);
    long.set(jfk.samples, 0);
    long.set(jfk.samples, jfk.samples.length + gap.length);
    long.set(jfk.samples, 2 * (jfk.samples.length + gap.length));
    const t0 = performance.now();
    const pieces = speechPieces(sherpa, { sampleRate: 16000, samples: long }, 1);
    const ms = performance.now() - t0;
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    const jfkMs = (jfk.samples.length / 16) | 0;
    // A piece starts in each copy.
    for (const copy of [0, 1, 2]) expect(pieces.some((p) => Math.abs(p.startMs - copy * (jfkMs + 2000)) < 1500)).toBe(true);
    for (const p of pieces) expect(p.samples.length / 16 + p.startMs).toBeLessThanOrEqual(long.length / 16 + 1);
    console.log(`speechPieces: ${(long.length / 16000).toFixed(1)} s audio in ${ms.toFixed(0)} ms, ${pieces.length} pieces`);
  });
});
