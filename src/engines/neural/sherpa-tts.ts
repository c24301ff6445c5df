/**
 * 'neural/sherpa-tts': VITS / Piper or Kokoro voices through sherpa-onnx OfflineTts, encoded
 * to MP3 by one long-running ffmpeg (the eSpeak engine's StreamingMp3Encoder: no process
 * start per sentence). Sentence by sentence when streamed, so the first sentence plays while
 * the next is made. These models report no word timings: boundaries come from eSpeak NG's
 * own timings of the same words, scaled to the neural audio (word-boundaries.ts). Each
 * speaker id of a multi-speaker model is offered as a voice; only for the model's languages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeLanguage } from '../../languages.js';
import { StreamingMp3Encoder } from '../builtin/espeak-mp3.js';
import { EngineError } from '../errors.js';
import { findModel } from '../models/catalog.js';
import type { EngineFactory } from '../registry.js';
import { pipelinedStream } from '../tts-stream.js';
import type { SynthesisChunk, SynthesisResult, SynthesizeOptions, Synthesizer, Voice } from '../types.js';
import { loadSherpa, modelFolder, pickFile, type SherpaModule, type Unavailable } from './sherpa-common.js';
import { guidedBoundaries } from './word-boundaries.js';

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

/** The eSpeak voice a Piper voice phonemizes with (its .onnx.json), for the boundary timings; en-us otherwise. */
function phonemizerVoice(dir: string): string {
  const json = pickFile(dir, /\.onnx\.json$/);
  try {
    return json ? ((JSON.parse(readFileSync(json, 'utf8')) as { espeak?: { voice?: string } }).espeak?.voice ?? 'en-us') : 'en-us';
  } catch {
    return 'en-us';
  }
}

export interface SherpaVoiceInfo {
  /** Catalogue name: voice names are `<model>` (one speaker) or `<model>-<speaker id>`. */
  model: string;
  /** Shown to users, e.g. "Joe (English US)". */
  label: string;
  gender: 'Female' | 'Male';
  languages: string[];
  /** eSpeak voice whose word timings place the boundaries. */
  phonemizer: string;
}

const base = (tag: string) => (normalizeLanguage(tag) ?? tag).split('-')[0]!.toLowerCase();

export class SherpaSynthesizer implements Synthesizer {
  readonly id = 'neural/sherpa-tts';
  readonly kind = 'tts' as const;
  readonly tier = 'neural' as const;
  readonly capabilities: { languages: string[]; wordTimes: true };
  private readonly tts: { generateAsync(o: object): Promise<{ samples: Float32Array; sampleRate: number }>; sampleRate: number };
  private readonly speakers: number;
  private readonly encoder: StreamingMp3Encoder;

  constructor(
    sherpa: SherpaModule,
    config: Record<string, unknown>,
    private readonly info: SherpaVoiceInfo,
    ffmpegPath: string,
  ) {
    this.tts = new sherpa.OfflineTts(config);
    this.speakers = Math.max(1, Number((this.tts as { numSpeakers?: number }).numSpeakers ?? 1));
    this.encoder = new StreamingMp3Encoder(ffmpegPath, this.tts.sampleRate);
    this.capabilities = { languages: info.languages, wordTimes: true };
  }

  private voiceName(sid: number): string {
    return this.speakers === 1 ? this.info.model : `${this.info.model}-${sid}`;
  }

  voices(language: string): Voice[] {
    if (!this.info.languages.some((l) => base(l) === base(language))) return [];
    return Array.from({ length: Math.min(this.speakers, 20) }, (_, i) => ({
      voice_name: this.voiceName(i),
      display_name: this.speakers === 1 ? `${this.info.label} (neural)` : `${this.info.label} ${i + 1} (neural)`,
      gender: this.info.gender,
      is_default: i === 0,
      language,
    }));
  }

  /** The speaker id of a request, or the spec's error for a language or voice this model does not have. */
  private speaker(options: SynthesizeOptions): number {
    const voices = this.voices(options.language);
    if (!voices.length)
      throw new EngineError('tts_invalid_language', `${this.info.model} does not speak ${options.language}`, { engineId: this.id });
    if (options.voice === undefined) return 0;
    const sid = voices.findIndex((v) => v.voice_name === options.voice);
    if (sid < 0) throw new EngineError('tts_voice_not_found', `no voice ${options.voice} in ${this.info.model}`, { engineId: this.id });
    return sid;
  }

  /** One piece of text to PCM (16-bit), its duration and boundaries relative to the piece. */
  private async render(text: string, sid: number, options: SynthesizeOptions) {
    options.signal?.throwIfAborted();
    const speed = Math.min(2, Math.max(0.5, options.speakingRate ?? 1));
    let audio: { samples: Float32Array; sampleRate: number };
    try {
      audio = await this.tts.generateAsync({ text, sid, speed });
    } catch (err) {
      throw new EngineError('tts_sample_generation_failed', `sherpa-onnx failed: ${(err as Error).message}`, {
        engineId: this.id,
        cause: err,
      });
    }
    options.signal?.throwIfAborted();
    const durationMs = Math.round((audio.samples.length / audio.sampleRate) * 1000);
    const pcm = Buffer.alloc(audio.samples.length * 2);
    for (let i = 0; i < audio.samples.length; i++)
      pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, audio.samples[i]!)) * 32767), i * 2);
    return { pcm, durationMs, boundaries: guidedBoundaries(text, durationMs, this.info.phonemizer) };
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    const sid = this.speaker(options);
    if (text.trim() === '') return { mp3: Buffer.alloc(0), durationMs: 0, boundaries: [] };
    const r = await this.render(text, sid, options);
    return { mp3: await this.encoder.encode(r.pcm, options.signal), durationMs: r.durationMs, boundaries: r.boundaries };
  }

  /** Sentence by sentence: a sentence's MP3 is encoded while the next one is generated. */
  async *synthesizeStream(text: string, options: SynthesizeOptions): AsyncGenerator<SynthesisChunk> {
    const sid = this.speaker(options);
    yield* pipelinedStream(
      text,
      (piece) => this.render(piece, sid, options),
      (pcm) => this.encoder.encode(pcm, options.signal),
    );
  }

  async close(): Promise<void> {
    this.encoder.close();
  }
}

export const sherpaTtsFactory: EngineFactory = {
  id: 'neural/sherpa-tts',
  kind: 'tts',
  tier: 'neural',
  summary:
    'Neural TTS: Piper/VITS or Kokoro voices (sherpa-onnx OfflineTts) to MP3; word boundaries from eSpeak NG timings scaled to the voice (PARLEY_SHERPA_TTS_MODEL).',
  async create(ctx) {
    if (ctx.config.engines.neuralTts === 'off') return { unavailable: 'PARLEY_NEURAL_TTS=off' };
    const name = ctx.config.engines.sherpaTtsModel;
    const dir = modelFolder(ctx.modelsDir, name, ['tts']);
    if (typeof dir !== 'string') return dir;
    const built = ttsModelConfig(dir, ctx.config.engines.neuralThreads);
    if ('unavailable' in built) return built;
    const m = findModel(name);
    const description = m?.description ?? '';
    const info: SherpaVoiceInfo = {
      model: name,
      label: m?.voiceLabel ?? name,
      gender: /thorsten|ryan|\bmale\b/i.test(description) && !/female/i.test(description) ? 'Male' : 'Female',
      languages: m?.languages ?? [],
      phonemizer: phonemizerVoice(dir),
    };
    return new SherpaSynthesizer(loadSherpa(), built.config, info, ctx.config.engines.ffmpegPath);
  },
};
