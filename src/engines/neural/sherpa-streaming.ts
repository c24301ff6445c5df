/**
 * 'neural/sherpa-streaming': streaming zipformer transducers through sherpa-onnx's
 * OnlineRecognizer. Partial hypotheses while speaking, a final result at each endpoint
 * (trailing silence rules), word times from the token timestamps. Decoding runs on
 * setImmediate so `write` returns at once.
 */
import { findModel } from '../models/catalog.js';
import type { EngineFactory } from '../registry.js';
import type { RecognizerStream, StreamingRecognizer, StreamingSttOptions, Word } from '../types.js';
import { loadSherpa, modelFolder, requireFiles, type SherpaModule } from './sherpa-common.js';

interface OnlineResult {
  text: string;
  tokens?: string[];
  timestamps?: number[];
}

/** Joins BPE tokens into words; a token starting with a space (or ▁) starts a new word. */
export function tokensToWords(tokens: string[], timestamps: number[], offsetMs: number, endMs: number): Word[] {
  const words: Word[] = [];
  tokens.forEach((tok, i) => {
    const startsWord =
      /^[\s▁]/.test(tok) || words.length === 0 || /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(tok);
    const t = tok.replace(/^[\s▁]+/, '');
    const at = offsetMs + Math.round((timestamps[i] ?? 0) * 1000);
    const last = words.at(-1);
    if (startsWord || !last) words.push({ text: t, startMs: at, endMs: at });
    else last.text += t;
  });
  words.forEach((w, i) => {
    const next = words[i + 1];
    w.endMs = Math.max(w.startMs, next ? next.startMs - 1 : endMs);
  });
  return words.filter((w) => w.text);
}

/** The English zipformers answer in capitals; show them in lower case (sentence case is the punctuator's job). */
const tidy = (text: string) => (text === text.toUpperCase() && /[A-Z]/.test(text) ? text.toLowerCase() : text).trim();

export function createSherpaStreaming(
  sherpa: SherpaModule,
  files: Record<'encoder' | 'decoder' | 'joiner' | 'tokens', string>,
  languages: string[],
  threads: number,
): StreamingRecognizer {
  const recognizer = new sherpa.OnlineRecognizer({
    featConfig: { sampleRate: 16000, featureDim: 80 },
    modelConfig: {
      transducer: { encoder: files.encoder, decoder: files.decoder, joiner: files.joiner },
      tokens: files.tokens,
      numThreads: threads,
      provider: 'cpu',
      debug: 0,
    },
    decodingMethod: 'greedy_search',
    enableEndpoint: 1,
    rule1MinTrailingSilence: 2.4,
    rule2MinTrailingSilence: 1.0,
    rule3MinUtteranceLength: 20,
  });
  return {
    id: 'neural/sherpa-streaming',
    kind: 'streaming-stt',
    tier: 'neural',
    capabilities: { languages, streaming: true, interimResults: true, wordTimes: true },
    async open(options: StreamingSttOptions): Promise<RecognizerStream> {
      const stream = recognizer.createStream();
      let fed = 0; // samples accepted
      let segmentStart = 0; // samples at the last endpoint
      let lastPartial = '';
      let pending: Float32Array[] = [];
      let scheduled = false;
      let closed = false;
      const ms = (samples: number) => Math.round((samples / 16000) * 1000);
      const emit = (isFinal: boolean) => {
        const r = recognizer.getResult(stream) as OnlineResult;
        const text = tidy(r.text);
        if (!text || (!isFinal && (!options.interimResults || text === lastPartial))) return;
        lastPartial = isFinal ? '' : text;
        const words = isFinal ? tokensToWords(r.tokens ?? [], r.timestamps ?? [], ms(segmentStart), ms(fed)) : undefined;
        options.onResult({
          text,
          isFinal,
          startMs: ms(segmentStart),
          endMs: ms(fed),
          words: words?.map((w) => ({ ...w, text: tidy(w.text) })),
        });
      };
      const pump = () => {
        scheduled = false;
        if (closed) return;
        try {
          for (const chunk of pending) {
            stream.acceptWaveform({ samples: chunk, sampleRate: 16000 });
            fed += chunk.length;
          }
          pending = [];
          while (recognizer.isReady(stream)) recognizer.decode(stream);
          if (recognizer.isEndpoint(stream)) {
            emit(true);
            recognizer.reset(stream);
            segmentStart = fed;
          } else emit(false);
        } catch (err) {
          closed = true;
          options.onError(err instanceof Error ? err : new Error(String(err)));
        }
      };
      return {
        write(pcm) {
          if (closed) return;
          const f = new Float32Array(pcm.length);
          for (let i = 0; i < pcm.length; i++) f[i] = (pcm[i] ?? 0) / 32768;
          pending.push(f);
          if (!scheduled) {
            scheduled = true;
            setImmediate(pump);
          }
        },
        async end() {
          if (closed) return;
          pump();
          // Tail padding lets the model finish the last word before input ends.
          stream.acceptWaveform({ samples: new Float32Array(16000 * 0.66), sampleRate: 16000 });
          stream.inputFinished();
          while (recognizer.isReady(stream)) recognizer.decode(stream);
          emit(true);
          closed = true;
        },
        abort() {
          closed = true;
          pending = [];
        },
      };
    },
  };
}

export const sherpaStreamingFactory: EngineFactory = {
  id: 'neural/sherpa-streaming',
  kind: 'streaming-stt',
  tier: 'neural',
  summary: 'Streaming zipformer (sherpa-onnx OnlineRecognizer): partial + final results with endpointing (PARLEY_SHERPA_STREAMING_MODEL).',
  async create(ctx) {
    const name = ctx.config.engines.sherpaStreamingModel;
    const dir = modelFolder(ctx.modelsDir, name, ['streaming-asr']);
    if (typeof dir !== 'string') return dir;
    const files = requireFiles(dir, {
      encoder: /^encoder.*\.onnx$/,
      decoder: /^decoder.*\.onnx$/,
      joiner: /^joiner.*\.onnx$/,
      tokens: /^tokens\.txt$/,
    });
    if ('unavailable' in files) return files;
    return createSherpaStreaming(loadSherpa(), files, findModel(name)?.languages ?? [], ctx.config.engines.neuralThreads);
  },
};
