/**
 * eSpeak NG text-to-speech (Debian libespeak-ng1 through koffi): robotic but instant, every
 * common language, male and female variants, and exact word boundaries from the library's
 * own word events. Audio is encoded to MP3 by one long-running ffmpeg (libmp3lame) that cuts
 * each sentence out of its stream as whole frames (espeak-mp3.ts): no process start per
 * sentence, so a short sentence is ready in a few milliseconds.
 */
import { normalizeLanguage } from '../../languages.js';
import { EngineError } from '../errors.js';
import type { EngineFactory } from '../registry.js';
import { placeBoundaries, sentencePieces } from '../tts-stream.js';
import type { SynthesisChunk, SynthesisResult, SynthesizeOptions, Synthesizer, Voice, WordBoundary } from '../types.js';
import { StreamingMp3Encoder } from './espeak-mp3.js';
import { espeakHasVoice, espeakSampleRate, espeakSynthesize, type WordEvent } from './espeak-native.js';

/** Served tag -> eSpeak voice. Chinese: Mandarin for zh-CN/zh-TW, Cantonese for zh-HK. */
const LANGUAGE_VOICES: ReadonlyArray<readonly [tag: string, voice: string, name: string]> = [
  ['en-US', 'en-us', 'English (US)'],
  ['en-GB', 'en', 'English (UK)'],
  ['es', 'es', 'Spanish'],
  ['fr', 'fr', 'French'],
  ['de', 'de', 'German'],
  ['it', 'it', 'Italian'],
  ['pt-BR', 'pt-br', 'Portuguese (Brazil)'],
  ['pt', 'pt', 'Portuguese'],
  ['ca', 'ca', 'Catalan'],
  ['nl', 'nl', 'Dutch'],
  ['ru', 'ru', 'Russian'],
  ['pl', 'pl', 'Polish'],
  ['sv', 'sv', 'Swedish'],
  ['tr', 'tr', 'Turkish'],
  ['ja', 'ja', 'Japanese'],
  ['ko', 'ko', 'Korean'],
  ['zh-CN', 'cmn', 'Mandarin (Simplified)'],
  ['zh-TW', 'cmn', 'Mandarin (Traditional)'],
  ['zh-HK', 'yue', 'Cantonese'],
  ['ar', 'ar', 'Arabic'],
  ['hi', 'hi', 'Hindi'],
  ['vi', 'vi', 'Vietnamese'],
  ['id', 'id', 'Indonesian'],
  ['uk', 'uk', 'Ukrainian'],
];

/** Voice variants offered for every language; the first is the default. */
const VARIANTS: ReadonlyArray<readonly [suffix: string, variant: string, gender: Voice['gender']]> = [
  ['female-1', 'f3', 'Female'],
  ['male-1', 'm3', 'Male'],
  ['female-2', 'f2', 'Female'],
  ['male-2', 'm1', 'Male'],
];

const DEFAULT_WPM = 175;

interface VoiceEntry extends Voice {
  espeakVoice: string;
}

/** Maps eSpeak word events (code-point positions) to boundaries indexing the JS string. */
export function wordBoundaries(text: string, words: WordEvent[], totalMs: number): WordBoundary[] {
  const cpToIndex: number[] = [];
  let i = 0;
  for (const ch of text) {
    cpToIndex.push(i);
    i += ch.length;
  }
  cpToIndex.push(i);
  const out: WordBoundary[] = [];
  let lastOffset = -1;
  for (const w of words) {
    const startCp = w.textPosition - 1;
    if (startCp < 0 || startCp >= cpToIndex.length - 1 || w.length <= 0) continue;
    const start = cpToIndex[startCp]!;
    const end = cpToIndex[Math.min(startCp + w.length, cpToIndex.length - 1)]!;
    if (start <= lastOffset) continue;
    lastOffset = start;
    out.push({ offset_ms: w.audioMs, duration_ms: 0, text: text.slice(start, end), text_offset: start, word_length: end - start });
  }
  for (let k = 0; k < out.length; k++) {
    const next = out[k + 1]?.offset_ms ?? totalMs;
    out[k]!.duration_ms = Math.max(0, next - out[k]!.offset_ms);
  }
  return out;
}

const PIECE_CHARS = 400;

/** Splits long text after sentence ends into pieces of about PIECE_CHARS, with their offsets. */
export function textPieces(text: string): Array<{ text: string; offset: number }> {
  if (text.length <= PIECE_CHARS) return [{ text, offset: 0 }];
  const pieces: Array<{ text: string; offset: number }> = [];
  const ends = /[.!?。！？；;]+["'”’」)）]*\s*/gu;
  let start = 0;
  let m: RegExpExecArray | null = ends.exec(text);
  while (m !== null) {
    const end = m.index + m[0].length;
    if (end - start >= PIECE_CHARS) {
      pieces.push({ text: text.slice(start, end), offset: start });
      start = end;
    }
    m = ends.exec(text);
  }
  if (start < text.length) pieces.push({ text: text.slice(start), offset: start });
  return pieces;
}

export class EspeakSynthesizer implements Synthesizer {
  readonly id = 'builtin/espeak';
  readonly kind = 'tts' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities: { languages: string[]; wordTimes: true };
  private readonly byLanguage = new Map<string, VoiceEntry[]>();
  private readonly byName = new Map<string, VoiceEntry>();

  private readonly encoder: StreamingMp3Encoder;

  constructor(ffmpegPath: string, languages: ReadonlyArray<readonly [string, string, string]>) {
    this.encoder = new StreamingMp3Encoder(ffmpegPath, espeakSampleRate());
    for (const [tag, espeakVoice, label] of languages) {
      const voices = VARIANTS.map(([suffix, variant, gender], n) => ({
        voice_name: `espeak-${tag}-${suffix}`,
        display_name: `${label} ${gender} ${suffix.endsWith('1') ? 1 : 2} (eSpeak)`,
        gender,
        is_default: n === 0,
        language: tag,
        espeakVoice: `${espeakVoice}+${variant}`,
      }));
      this.byLanguage.set(tag, voices);
      for (const v of voices) this.byName.set(v.voice_name, v);
    }
    this.capabilities = { languages: [...this.byLanguage.keys()], wordTimes: true };
  }

  /** The voice list of the served tag for `language`: exact tag first, then the base language. */
  private entries(language: string): VoiceEntry[] {
    const tag = normalizeLanguage(language);
    if (!tag) return [];
    const exact = this.byLanguage.get(tag);
    if (exact) return exact;
    const base = tag.split('-')[0]!;
    if (base === 'zh') return [];
    for (const [served, voices] of this.byLanguage) if (served.split('-')[0] === base) return voices;
    return [];
  }

  async close(): Promise<void> {
    this.encoder.close();
  }

  voices(language: string): Voice[] {
    return this.entries(language).map(({ espeakVoice: _e, ...v }) => v);
  }

  /** The voice and rate for a request, or the spec's error for an unknown language or voice. */
  private pick(options: SynthesizeOptions): { voice: VoiceEntry; wpm: number } {
    const voices = this.entries(options.language);
    if (voices.length === 0)
      throw new EngineError('tts_invalid_language', `eSpeak has no voice for ${options.language}`, { engineId: this.id });
    const voice = options.voice === undefined ? voices[0]! : this.byName.get(options.voice);
    if (!voice) throw new EngineError('tts_voice_not_found', `No eSpeak voice named ${options.voice}`, { engineId: this.id });
    const rate = Math.min(2, Math.max(0.5, options.speakingRate ?? 1));
    return { voice, wpm: Math.round(DEFAULT_WPM * rate) };
  }

  /**
   * Renders the pieces one by one, yielding to the event loop between them (each
   * espeak_Synth call blocks the thread, about 4 ms per second of speech). Boundaries and
   * times are placed on the whole text.
   */
  private async *render(
    pieces: Array<{ text: string; offset: number }>,
    options: SynthesizeOptions,
  ): AsyncGenerator<{ text: string; offset: number; pcm: Int16Array; startMs: number; durationMs: number; boundaries: WordBoundary[] }> {
    const { voice, wpm } = this.pick(options);
    let samples = 0;
    for (const [i, piece] of pieces.entries()) {
      options.signal?.throwIfAborted();
      if (i > 0) await new Promise((r) => setImmediate(r));
      let raw: ReturnType<typeof espeakSynthesize>;
      try {
        raw = espeakSynthesize(piece.text, voice.espeakVoice, wpm);
      } catch (err) {
        throw new EngineError('tts_sample_generation_failed', `eSpeak failed: ${(err as Error).message}`, {
          engineId: this.id,
          cause: err,
        });
      }
      const startMs = Math.round((samples / raw.sampleRate) * 1000);
      samples += raw.pcm.length;
      const durationMs = Math.round((samples / raw.sampleRate) * 1000) - startMs;
      const boundaries = placeBoundaries(wordBoundaries(piece.text, raw.words, durationMs), startMs, piece.offset);
      yield { text: piece.text, offset: piece.offset, pcm: raw.pcm, startMs, durationMs, boundaries };
    }
  }

  /** The whole text as one MP3 (one encode, so no gaps between pieces). */
  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    this.pick(options);
    if (text.trim() === '') return { mp3: Buffer.alloc(0), durationMs: 0, boundaries: [] };
    const pcm: Int16Array[] = [];
    const boundaries: WordBoundary[] = [];
    let durationMs = 0;
    for await (const piece of this.render(textPieces(text), options)) {
      pcm.push(piece.pcm);
      boundaries.push(...piece.boundaries);
      durationMs = piece.startMs + piece.durationMs;
    }
    const mp3 = await this.encoder.encode(Buffer.concat(pcm.map(asBytes)), options.signal);
    return { mp3, durationMs, boundaries };
  }

  /**
   * Sentence by sentence: each sentence's MP3 is encoded while the next one is rendered,
   * and yielded as soon as its encoder finishes.
   */
  async *synthesizeStream(text: string, options: SynthesizeOptions): AsyncGenerator<SynthesisChunk> {
    this.pick(options);
    let previous: Promise<SynthesisChunk> | null = null;
    try {
      for await (const piece of this.render(sentencePieces(text), options)) {
        const encoding = this.encoder.encode(Buffer.from(asBytes(piece.pcm)), options.signal).then((mp3) => ({
          text: piece.text,
          textOffset: piece.offset,
          mp3,
          startMs: piece.startMs,
          durationMs: piece.durationMs,
          boundaries: piece.boundaries,
        }));
        encoding.catch(() => {}); // observed below; a failure while the previous one is awaited must not go unhandled
        if (previous) yield await previous;
        previous = encoding;
      }
      if (previous) yield await previous;
    } finally {
      previous?.catch(() => {});
    }
  }
}

const asBytes = (p: Int16Array) => Buffer.from(p.buffer, p.byteOffset, p.byteLength);

export const espeakFactory: EngineFactory = {
  id: 'builtin/espeak',
  kind: 'tts',
  tier: 'builtin',
  summary: 'eSpeak NG speech synthesis (Debian libespeak-ng1 via koffi; MP3 via ffmpeg), word boundaries from eSpeak word events',
  async create(ctx) {
    let installed: Array<readonly [string, string, string]>;
    try {
      installed = LANGUAGE_VOICES.filter(([, voice]) => espeakHasVoice(voice));
    } catch (err) {
      return { unavailable: `libespeak-ng is not usable: ${(err as Error).message} (apt-get install libespeak-ng1)` };
    }
    if (installed.length === 0) return { unavailable: 'no eSpeak voices installed (espeak-ng-data)' };
    // libespeak-ng drops the first word event of the next synthesis when the voice checks above
    // ran a second time in the process before any synthesis (a second registry: tests, the
    // engines CLI beside a service): one throwaway synthesis here keeps every boundary.
    espeakSynthesize('a', installed[0]![1], DEFAULT_WPM);
    return new EspeakSynthesizer(ctx.config.engines.ffmpegPath, installed);
  },
};
