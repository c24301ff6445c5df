/**
 * 'neural/sherpa-tts': VITS / Piper or Kokoro voices through sherpa-onnx OfflineTts, encoded
 * to MP3 with ffmpeg. These models report no word timings, so boundaries are estimated
 * from text proportions (word-boundaries.ts). Each speaker id of a multi-speaker model is
 * offered as a voice.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encodePcmToMp3 } from '../audio/ffmpeg.js';
import { EngineError } from '../errors.js';
import { findModel } from '../models/catalog.js';
import type { EngineFactory } from '../registry.js';
import type { Synthesizer, Voice } from '../types.js';
import { loadSherpa, modelFolder, pickFile, type SherpaModule, type Unavailable } from './sherpa-common.js';
import { estimateBoundaries } from './word-boundaries.js';

/** The OfflineTts model config for a Piper/VITS or Kokoro folder. */
export function ttsModelConfig(dir: string, threads: number): { config: Record<string, unknown> } | Unavailable {
  const tokens = pickFile(dir, /^tokens\.txt$/);
  const voices = pickFile(dir, /^voices\.bin$/);
  const model = pickFile(dir, /\.onnx$/);
  if (!tokens || !model) return { unavailable: `${dir} holds no TTS model (.onnx + tokens.txt); re-run models pull` };
  const dataDir = existsSync(join(dir, 'espeak-ng-data')) ? join(dir, 'espeak-ng-data') : '';
  const lexicon = pickFile(dir, /^lexicon.*\.txt$/) ?? '';
  const model_ = voices ? { kokoro: { model, voices, tokens, dataDir, lexicon } } : { vits: { model, tokens, dataDir, lexicon } };
  return { config: { model: { ...model_, numThreads: threads, debug: 0, provider: 'cpu' }, maxNumSentences: 1 } };
}

export function createSherpaTts(
  sherpa: SherpaModule,
  config: Record<string, unknown>,
  languages: string[],
  ffmpegPath: string,
  genderOf: 'Female' | 'Male',
): Synthesizer {
  const tts = new sherpa.OfflineTts(config);
  const speakers = Math.max(1, Number(tts.numSpeakers ?? 1));
  const voices = (language: string): Voice[] =>
    Array.from({ length: Math.min(speakers, 20) }, (_, i) => ({
      voice_name: `sherpa-${i}`,
      display_name: `Voice ${i + 1}`,
      gender: genderOf,
      is_default: i === 0,
      language,
    }));
  return {
    id: 'neural/sherpa-tts',
    kind: 'tts',
    tier: 'neural',
    capabilities: { languages, wordTimes: true },
    voices,
    async synthesize(text, options) {
      const sid = options.voice ? Number(options.voice.replace('sherpa-', '')) : 0;
      if (!Number.isInteger(sid) || sid < 0 || sid >= speakers) throw new EngineError('tts_voice_not_found', `no voice ${options.voice}`);
      const speed = Math.min(2, Math.max(0.5, options.speakingRate ?? 1));
      const audio = (await tts.generateAsync({ text, sid, speed })) as { samples: Float32Array; sampleRate: number };
      const mp3 = await encodePcmToMp3({ samples: audio.samples, sampleRate: audio.sampleRate }, { ffmpegPath });
      const durationMs = Math.round((audio.samples.length / audio.sampleRate) * 1000);
      return { mp3, durationMs, boundaries: estimateBoundaries(text, durationMs) };
    },
  };
}

export const sherpaTtsFactory: EngineFactory = {
  id: 'neural/sherpa-tts',
  kind: 'tts',
  tier: 'neural',
  summary: 'Neural TTS: Piper/VITS or Kokoro voices (sherpa-onnx OfflineTts) to MP3; word boundaries estimated (PARLEY_SHERPA_TTS_MODEL).',
  async create(ctx) {
    const name = ctx.config.engines.sherpaTtsModel;
    const dir = modelFolder(ctx.modelsDir, name, ['tts']);
    if (typeof dir !== 'string') return dir;
    const built = ttsModelConfig(dir, ctx.config.engines.neuralThreads);
    if ('unavailable' in built) return built;
    const gender =
      /thorsten|ryan|male/i.test(findModel(name)?.description ?? '') && !/female/i.test(findModel(name)?.description ?? '')
        ? 'Male'
        : 'Female';
    return createSherpaTts(loadSherpa(), built.config, findModel(name)?.languages ?? [], ctx.config.engines.ffmpegPath, gender);
  },
};
