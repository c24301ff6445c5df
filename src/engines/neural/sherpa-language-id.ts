/**
 * 'neural/sherpa-language-id': spoken-language identification with a multilingual Whisper
 * encoder/decoder (sherpa-onnx SpokenLanguageIdentification). It names one language per
 * call without a score, so the guess carries confidence 1 and, when `candidates` are given
 * and the guess is not among them, an empty list (the caller then falls back).
 */
import { languageServes, normalizeLanguage } from '../../languages.js';
import type { EngineFactory } from '../registry.js';
import type { SpokenLanguageIdentifier } from '../types.js';
import { loadSherpa, modelFolder, requireFiles, type SherpaModule } from './sherpa-common.js';

export function createSherpaLanguageId(
  sherpa: SherpaModule,
  files: { encoder: string; decoder: string },
  threads: number,
): SpokenLanguageIdentifier {
  const slid = new sherpa.SpokenLanguageIdentification({
    whisper: { encoder: files.encoder, decoder: files.decoder, tailPaddings: -1 },
    numThreads: threads,
    debug: 0,
  });
  return {
    id: 'neural/sherpa-language-id',
    kind: 'spoken-language-id',
    tier: 'neural',
    capabilities: { languages: ['*'] },
    async identify(audio, candidates) {
      // Whisper looks at the first 30 s; more only costs time.
      const samples = audio.samples.subarray(0, audio.sampleRate * 30);
      const stream = slid.createStream();
      stream.acceptWaveform({ samples, sampleRate: audio.sampleRate });
      const code = normalizeLanguage(String(slid.compute(stream)));
      if (!code) return [];
      if (candidates?.length) {
        const match = candidates.find((c) => languageServes(code, c));
        return match ? [{ language: match, confidence: 1 }] : [];
      }
      return [{ language: code, confidence: 1 }];
    },
  };
}

export const sherpaLanguageIdFactory: EngineFactory = {
  id: 'neural/sherpa-language-id',
  kind: 'spoken-language-id',
  tier: 'neural',
  summary: 'Spoken-language identification with multilingual Whisper (sherpa-onnx, PARLEY_SHERPA_LID_MODEL).',
  async create(ctx) {
    const dir = modelFolder(ctx.modelsDir, ctx.config.engines.sherpaLanguageIdModel, ['offline-asr', 'spoken-language-id']);
    if (typeof dir !== 'string') return dir;
    const files = requireFiles(dir, { encoder: /encoder.*\.onnx$/, decoder: /decoder.*\.onnx$/ });
    if ('unavailable' in files) return files;
    return createSherpaLanguageId(loadSherpa(), files, ctx.config.engines.neuralThreads);
  },
};
