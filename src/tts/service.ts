/**
 * TTS voices and voice samples (`GET /api/v1/tts/voices`, `.../voices/{voiceName}/sample`).
 * Voices come from the synthesizers this process loaded (best first, as the registry orders
 * them); a sample is one short sentence in the voice's language, synthesized on the first
 * request and kept in the blob store, so later requests (on any process sharing the store)
 * only read it. Samples are free: nothing here touches billing.
 */
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import type { Logger } from 'pino';
import type { EngineOfKind } from '../engines/registry.js';
import type { Synthesizer, Voice } from '../engines/types.js';
import { baseLanguage, normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import type { BlobStore } from '../storage/types.js';
import { voiceChoices, voicesFor } from './voice-choice.js';

/** What the service needs of the engine registry. */
export interface TtsEngines {
  enginesOf(kind: 'tts'): EngineOfKind['tts'][];
}

export interface VoiceJson {
  voice_name: string;
  display_name: string;
  gender: 'Female' | 'Male';
  is_default: boolean;
  sample_url: string;
}

/** The sentence each sample speaks, by base language; English where none is listed. */
const SAMPLE_SENTENCES: Record<string, string> = {
  en: 'Hello, this is how I sound when I read your translations aloud.',
  es: 'Hola, así es como sueno cuando leo tus traducciones en voz alta.',
  fr: 'Bonjour, voici ma voix quand je lis vos traductions à haute voix.',
  de: 'Hallo, so klinge ich, wenn ich Ihre Übersetzungen vorlese.',
  it: 'Ciao, ecco come suono quando leggo ad alta voce le tue traduzioni.',
  pt: 'Olá, é assim que eu soo quando leio as suas traduções em voz alta.',
  nl: 'Hallo, zo klink ik wanneer ik je vertalingen voorlees.',
  ca: 'Hola, així sono quan llegeixo les teves traduccions en veu alta.',
  ru: 'Здравствуйте, так звучит мой голос, когда я читаю ваши переводы.',
  pl: 'Dzień dobry, tak brzmi mój głos, gdy czytam twoje tłumaczenia.',
  sv: 'Hej, så här låter jag när jag läser upp dina översättningar.',
  tr: 'Merhaba, çevirilerinizi sesli okurken sesim böyle duyulur.',
  uk: 'Вітаю, так звучить мій голос, коли я читаю ваші переклади.',
  ja: 'こんにちは、翻訳を読み上げるときの私の声です。',
  ko: '안녕하세요, 번역을 읽어 드릴 때 제 목소리입니다.',
  zh: '你好，这是我朗读翻译时的声音。',
  yue: '你好，呢個係我讀出翻譯嘅聲音。',
  ar: 'مرحبا، هكذا يبدو صوتي عندما أقرأ ترجماتك بصوت عال.',
  hi: 'नमस्ते, जब मैं आपके अनुवाद पढ़ता हूँ तो मेरी आवाज़ ऐसी होती है।',
  vi: 'Xin chào, đây là giọng của tôi khi đọc bản dịch của bạn.',
  id: 'Halo, beginilah suara saya saat membacakan terjemahan Anda.',
};

export function sampleSentence(language: string): string {
  const tag = normalizeLanguage(language) ?? language;
  if (tag === 'zh-HK') return SAMPLE_SENTENCES.yue!;
  return SAMPLE_SENTENCES[baseLanguage(tag)] ?? SAMPLE_SENTENCES.en!;
}

/** The relative URL of a voice's sample (relative, so it holds behind any proxy or host name). */
export function sampleUrl(voiceName: string): string {
  return `/api/v1/tts/voices/${encodeURIComponent(voiceName)}/sample`;
}

/**
 * The blob key of a voice's cached sample. Hashed because voice names are the engines'
 * (any characters); the engine id is part of it so two engines' same-named voices differ.
 */
export function sampleBlobKey(engineId: string, voiceName: string): string {
  const digest = createHash('sha256').update(`${engineId}\0${voiceName}`).digest('hex').slice(0, 40);
  return `tts-samples/${digest}.mp3`;
}

/** Longest voice name looked up; anything longer cannot name a voice. */
const MAX_VOICE_NAME = 200;

export class TtsService {
  /** First syntheses in progress, so concurrent first requests synthesize once. */
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly engines: TtsEngines,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  /**
   * The voices for `language` (a well-formed BCP 47 tag, already normalized): every
   * synthesizer's, best first, the best one's default as the default (voice-choice.ts). An
   * engine declaring "en-US" still answers "en" (its voices match by base language), so this
   * asks each engine's voice list rather than `select`, which matches declared tags only.
   * None: an empty list.
   */
  voices(language: string): VoiceJson[] {
    return voicesFor(this.engines.enginesOf('tts'), language).map(voiceJson);
  }

  /**
   * The synthesizer and voice that speak `language` (normalized), as the voices list offers
   * them: 400 `tts_invalid_language` when no synthesizer has a voice for it, 404
   * `tts_voice_not_found` when `voiceName` is not one of that language's voices. Without a
   * voice name, the language's default voice.
   */
  voiceFor(language: string, voiceName?: string): { engine: Synthesizer; voice: Voice } {
    const choices = voiceChoices(this.engines.enginesOf('tts'), language);
    if (!choices.length)
      throw new AppError('tts_invalid_language', { message: `No voice speaks ${language}.`, details: { field: 'language', language } });
    const found = voiceName === undefined ? choices.find((c) => c.voice.is_default) : choices.find((c) => c.voice.voice_name === voiceName);
    if (!found) {
      throw new AppError('tts_voice_not_found', {
        message: `No voice named ${voiceName?.slice(0, MAX_VOICE_NAME)} speaks ${language}.`,
        details: { voice_name: voiceName?.slice(0, MAX_VOICE_NAME), language, valid_values: choices.map((c) => c.voice.voice_name) },
      });
    }
    return found;
  }

  /** The MP3 sample of a voice: from the blob store, or synthesized and stored on first use. */
  async sample(voiceName: string): Promise<Buffer> {
    const found = this.findVoice(voiceName);
    if (!found) throw new AppError('tts_voice_not_found', { details: { voice_name: voiceName.slice(0, MAX_VOICE_NAME) } });
    const key = sampleBlobKey(found.engine.id, found.voice.voice_name);
    if (await this.blobs.stat(key)) return buffer(await this.blobs.get(key));
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.generate(found.engine, found.voice, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async generate(engine: Synthesizer, voice: Voice, key: string): Promise<Buffer> {
    let mp3: Buffer;
    try {
      ({ mp3 } = await engine.synthesize(sampleSentence(voice.language), { language: voice.language, voice: voice.voice_name }));
    } catch (err) {
      this.logger.error({ err, engine: engine.id, voice: voice.voice_name }, 'voice sample synthesis failed');
      throw new AppError('tts_sample_generation_failed', { details: { voice_name: voice.voice_name } });
    }
    if (mp3.length === 0) {
      this.logger.error({ engine: engine.id, voice: voice.voice_name }, 'voice sample synthesis returned no audio');
      throw new AppError('tts_sample_generation_failed', { details: { voice_name: voice.voice_name } });
    }
    await this.blobs.put(key, mp3);
    return mp3;
  }

  /** The engine and voice named `voiceName`, searching every language each synthesizer serves. */
  private findVoice(voiceName: string): { engine: Synthesizer; voice: Voice } | null {
    if (!voiceName || voiceName.length > MAX_VOICE_NAME) return null;
    for (const engine of this.engines.enginesOf('tts')) {
      // An any-language engine ("*") names the same voices in every language: English stands for them.
      const languages = engine.capabilities.languages.map((l) => (l === '*' ? 'en' : l));
      for (const language of languages) {
        const voice = engine.voices(language).find((v) => v.voice_name === voiceName);
        if (voice) return { engine, voice };
      }
    }
    return null;
  }
}

function voiceJson(v: Voice): VoiceJson {
  return {
    voice_name: v.voice_name,
    display_name: v.display_name,
    gender: v.gender,
    is_default: v.is_default,
    sample_url: sampleUrl(v.voice_name),
  };
}
