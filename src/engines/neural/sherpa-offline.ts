/**
 * 'neural/sherpa-offline': file transcription with sherpa-onnx's OfflineRecognizer, for
 * Whisper, SenseVoice or paraformer folders (detected from the files present). Long audio
 * is cut at pauses by silero VAD first; each piece becomes a segment, with word times from
 * token timestamps when the model gives them (SenseVoice, paraformer) and without words
 * otherwise (Whisper in sherpa-onnx reports none).
 */
import { baseLanguage } from '../../languages.js';
import { findModel } from '../models/catalog.js';
import type { EngineFactory } from '../registry.js';
import type { FileRecognizer, FileTranscriptSegment } from '../types.js';
import { loadSherpa, modelFolder, pickFile, type SherpaModule, speechPieces, type Unavailable } from './sherpa-common.js';
import { tokensToWords } from './sherpa-streaming.js';

type Family = 'whisper' | 'sense-voice' | 'paraformer';

/** SenseVoice knows five languages; anything else is left to its own detection. */
function senseVoiceLanguage(language?: string): string {
  const base = language ? baseLanguage(language) : 'auto';
  return ['zh', 'en', 'ja', 'ko', 'yue'].includes(base) ? base : 'auto';
}

/** The model config for the folder's family, or why the folder is not usable. */
export function offlineModelConfig(
  dir: string,
  threads: number,
  language?: string,
): { family: Family; config: Record<string, unknown> } | Unavailable {
  const tokens = pickFile(dir, /tokens\.txt$/);
  const encoder = pickFile(dir, /encoder.*\.onnx$/);
  const decoder = pickFile(dir, /decoder.*\.onnx$/);
  const single = pickFile(dir, /^model.*\.onnx$/);
  if (!tokens) return { unavailable: `no tokens file in ${dir}` };
  const common = { tokens, numThreads: threads, provider: 'cpu', debug: 0 };
  if (encoder && decoder)
    return {
      family: 'whisper',
      config: {
        ...common,
        whisper: { encoder, decoder, language: language ? baseLanguage(language) : '', task: 'transcribe', tailPaddings: -1 },
      },
    };
  if (single && /sense/i.test(dir))
    return {
      family: 'sense-voice',
      config: {
        ...common,
        senseVoice: { model: single, language: senseVoiceLanguage(language), useInverseTextNormalization: 1 },
      },
    };
  if (single) return { family: 'paraformer', config: { ...common, paraformer: { model: single } } };
  return { unavailable: `${dir} holds no Whisper, SenseVoice or paraformer model files` };
}

export function createSherpaOffline(sherpa: SherpaModule, dir: string, languages: string[], threads: number): FileRecognizer {
  const recognizers = new Map<
    string,
    { family: Family; rec: { createStream(): unknown; decodeAsync(s: unknown): Promise<unknown>; getResult(s: unknown): unknown } }
  >();
  const recognizerFor = (language: string) => {
    const key = baseLanguage(language);
    let r = recognizers.get(key);
    if (!r) {
      const c = offlineModelConfig(dir, threads, language);
      if ('unavailable' in c) throw new Error(c.unavailable);
      r = {
        family: c.family,
        rec: new sherpa.OfflineRecognizer({
          featConfig: { sampleRate: 16000, featureDim: 80 },
          modelConfig: c.config,
          decodingMethod: 'greedy_search',
        }),
      };
      recognizers.set(key, r);
    }
    return r;
  };
  return {
    id: 'neural/sherpa-offline',
    kind: 'file-stt',
    tier: 'neural',
    capabilities: { languages, wordTimes: true },
    async transcribe(audio, options) {
      const { rec } = recognizerFor(options.language);
      const pieces = speechPieces(sherpa, audio, threads);
      const segments: FileTranscriptSegment[] = [];
      let detected: string | undefined;
      for (const [i, piece] of pieces.entries()) {
        if (options.signal?.aborted) throw options.signal.reason;
        const stream = rec.createStream() as { acceptWaveform(o: { samples: Float32Array; sampleRate: number }): void };
        stream.acceptWaveform({ samples: piece.samples, sampleRate: audio.sampleRate });
        await rec.decodeAsync(stream);
        const r = rec.getResult(stream) as { text: string; tokens?: string[]; timestamps?: number[]; lang?: string };
        const endMs = piece.startMs + Math.round((piece.samples.length / audio.sampleRate) * 1000);
        const text = r.text.trim();
        if (r.lang) detected ??= r.lang.replace(/[<>|]/g, '');
        if (text)
          segments.push({
            text,
            startMs: piece.startMs,
            endMs,
            words: r.timestamps?.length ? tokensToWords(r.tokens ?? [], r.timestamps, piece.startMs, endMs) : [],
          });
        options.onProgress?.((i + 1) / pieces.length);
      }
      return {
        text: segments.map((s) => s.text).join(' '),
        language: detected || options.language,
        segments,
        durationMs: Math.round((audio.samples.length / audio.sampleRate) * 1000),
      };
    },
  };
}

export const sherpaOfflineFactory: EngineFactory = {
  id: 'neural/sherpa-offline',
  kind: 'file-stt',
  tier: 'neural',
  summary: 'File transcription with Whisper / SenseVoice / paraformer (sherpa-onnx OfflineRecognizer, PARLEY_SHERPA_OFFLINE_MODEL).',
  async create(ctx) {
    const name = ctx.config.engines.sherpaOfflineModel;
    const dir = modelFolder(ctx.modelsDir, name, ['offline-asr']);
    if (typeof dir !== 'string') return dir;
    const check = offlineModelConfig(dir, 1);
    if ('unavailable' in check) return check;
    return createSherpaOffline(loadSherpa(), dir, findModel(name)?.languages ?? [], ctx.config.engines.neuralThreads);
  },
};
