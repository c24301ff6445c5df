/**
 * What a caller needs from an engine, and the typed refusal when nothing here meets it.
 * Callers ask `EngineRegistry.select(need)`; a refusal names what is missing so the caller
 * can answer with the interface's error code and `details` (never a silent fallback).
 * Requirement checks read only an engine's declared `capabilities` (and a TTS engine's voice
 * list), so `npm run -s engines` can show the same table the registry decides by.
 */
import { baseLanguage, isChinese, languageServes, normalizeLanguage } from '../languages.js';
import type { AnyEngine, Diarizer, EngineCapabilities, EngineKind, Synthesizer } from './types.js';

/** Every kind, in the order tables and logs list them. */
export const ENGINE_KINDS: readonly EngineKind[] = [
  'streaming-stt',
  'file-stt',
  'vad',
  'diarizer',
  'language-id',
  'spoken-language-id',
  'translator',
  'llm',
  'summarizer',
  'tts',
];

/** Recognizer needs: the language plus the features a session asks for. */
export interface RecognizerNeed {
  language: string;
  interimResults?: boolean;
  wordTimes?: boolean;
  diarization?: boolean;
  /** Audio channels recognized by one stream (default 1). */
  channels?: number;
  /** multi_language: every language the recognizer must serve and tell apart (`language` is one of them). */
  languages?: readonly string[];
}

export type Need =
  | ({ kind: 'streaming-stt' } & RecognizerNeed)
  | ({ kind: 'file-stt' } & RecognizerNeed)
  | { kind: 'vad' }
  /** live: labels speech as it arrives (`openLive`), for multi_speaker live sessions. */
  | { kind: 'diarizer'; live?: boolean }
  | { kind: 'language-id'; language?: string }
  | { kind: 'spoken-language-id'; language?: string }
  | { kind: 'translator'; from: string; to: string }
  | { kind: 'llm'; streaming?: boolean }
  | { kind: 'summarizer'; language: string; instructions?: boolean }
  | { kind: 'tts'; language: string; voice?: string; streaming?: boolean; wordTimes?: boolean };

export type NeedOf<K extends EngineKind> = Extract<Need, { kind: K }>;

/** The requirement names `missing` uses (stable: tests and clients may read them). */
export type RequirementName =
  | 'engine'
  | 'language'
  | 'pair'
  | 'interim_results'
  | 'word_times'
  | 'diarization'
  | 'channels'
  | 'language_detection'
  | 'voice'
  | 'streaming'
  | 'instructions';

export interface Requirement {
  name: RequirementName;
  /** How the message says it: "de-DE", "diarization", "2 channels", "voice en-US-x". */
  label: string;
  met(engine: AnyEngine): boolean;
}

/** Why no engine was selected. */
export interface Refusal {
  kind: EngineKind;
  need: Need;
  /** Requirements the closest engine of this kind does not meet (`engine`: none of this kind is available). */
  missing: RequirementName[];
  /** "no streaming recognizer here serves de-DE with diarization". */
  message: string;
  /** What each available engine of the kind lacks, for logs and the CLI. */
  engines: Array<{ id: string; missing: RequirementName[] }>;
}

export type Selection<E> = { ok: true; engine: E } | { ok: false; refusal: Refusal };

/** Words for each kind in messages. */
export const KIND_NOUN: Record<EngineKind, string> = {
  'streaming-stt': 'streaming recognizer',
  'file-stt': 'file recognizer',
  vad: 'voice activity detector',
  diarizer: 'diarizer',
  'language-id': 'text language identifier',
  'spoken-language-id': 'spoken language identifier',
  translator: 'translator',
  llm: 'language model',
  summarizer: 'summarizer',
  tts: 'speech synthesizer',
};

/**
 * What an engine offers: its declared capabilities, plus `streaming` for a synthesizer that
 * implements `synthesizeStream` itself (every synthesizer can be streamed sentence by sentence
 * through tts-stream.ts; this says it produces audio while it renders).
 */
export function capabilitiesOf(e: AnyEngine): EngineCapabilities {
  if (e.kind === 'tts' && e.capabilities.streaming === undefined && typeof e.synthesizeStream === 'function')
    return { ...e.capabilities, streaming: true };
  return e.capabilities;
}

/**
 * An engine serves a need's language when it declares it or a wider tag (languageServes), or
 * when the need is a bare language and the engine declares a regional form of it: a request
 * for "en" (what translation and viewer languages usually are) is met by an en-US voice or
 * recognizer, as users expect. Chinese is left script-exact ("zh" names no script).
 */
function servesLanguage(declared: string, need: string): boolean {
  if (languageServes(declared, need)) return true;
  const bare = normalizeLanguage(need);
  return !!bare && !bare.includes('-') && !isChinese(bare) && baseLanguage(declared) === bare;
}
const serves = (e: AnyEngine, language: string) => e.capabilities.languages.some((l) => servesLanguage(l, language));
const flag = (name: RequirementName, label: string, key: 'interimResults' | 'wordTimes' | 'diarization' | 'streaming'): Requirement => ({
  name,
  label,
  met: (e) => capabilitiesOf(e)[key] === true,
});

/** A translator serves from -> to directly ("*" serves any language). */
export function servesPair(e: AnyEngine, from: string, to: string): boolean {
  return (e.capabilities.pairs ?? []).some(([f, t]) => languageServes(f, from) && languageServes(t, to));
}

/** A recognizer need's languages: `language` and the multi_language candidates, each once. */
export function candidateLanguages(need: RecognizerNeed): string[] {
  return [...new Set([need.language, ...(need.languages ?? [])])];
}

/** The requirements of a need, in message order (subject first). */
export function requirementsOf(need: Need): Requirement[] {
  const out: Requirement[] = [];
  switch (need.kind) {
    case 'streaming-stt':
    case 'file-stt': {
      const languages = candidateLanguages(need);
      out.push({ name: 'language', label: languages.join(' and '), met: (e) => languages.every((l) => serves(e, l)) });
      if (need.interimResults) out.push(flag('interim_results', 'interim results', 'interimResults'));
      if (need.wordTimes) out.push(flag('word_times', 'word times', 'wordTimes'));
      if (need.diarization) out.push(flag('diarization', 'diarization', 'diarization'));
      const channels = need.channels ?? 1;
      if (channels > 1)
        out.push({ name: 'channels', label: `${channels} channels`, met: (e) => (e.capabilities.channels ?? 1) >= channels });
      if (languages.length > 1)
        out.push({
          name: 'language_detection',
          label: 'language detection',
          met: (e) => e.capabilities.languageDetection === true,
        });
      break;
    }
    case 'language-id':
    case 'spoken-language-id':
    case 'summarizer':
      if (need.language) {
        const language = need.language;
        out.push({ name: 'language', label: language, met: (e) => serves(e, language) });
      }
      if (need.kind === 'summarizer' && need.instructions)
        out.push({ name: 'instructions', label: 'custom prompts', met: (e) => capabilitiesOf(e).instructions !== false });
      break;
    case 'translator':
      out.push({ name: 'pair', label: `${need.from} to ${need.to}`, met: (e) => servesPair(e, need.from, need.to) });
      break;
    case 'llm':
      if (need.streaming) out.push(flag('streaming', 'streaming', 'streaming'));
      break;
    case 'diarizer':
      // A diarizer without a live mode labels whole recordings only: a live session takes the next one that can.
      if (need.live) out.push({ name: 'streaming', label: 'live labelling', met: (e) => typeof (e as Diarizer).openLive === 'function' });
      break;
    case 'tts': {
      out.push({ name: 'language', label: need.language, met: (e) => serves(e, need.language) });
      const voice = need.voice;
      if (voice)
        out.push({
          name: 'voice',
          label: `voice ${voice}`,
          met: (e) => (e as Synthesizer).voices(need.language).some((v) => v.voice_name === voice),
        });
      if (need.streaming) out.push(flag('streaming', 'streaming', 'streaming'));
      if (need.wordTimes) out.push(flag('word_times', 'word times', 'wordTimes'));
      break;
    }
  }
  return out;
}

/** "no streaming recognizer here serves de-DE with diarization and word times". */
export function refusalMessage(kind: EngineKind, requirements: Requirement[], anyOfKind: boolean): string {
  const noun = KIND_NOUN[kind];
  if (!anyOfKind) return `no ${noun} is available here`;
  const first = requirements[0];
  const hasSubject = first?.name === 'language' || first?.name === 'pair';
  const features = (hasSubject ? requirements.slice(1) : requirements).map((r) => r.label).join(' and ');
  if (!hasSubject) return `no ${noun} here offers ${features}`;
  return `no ${noun} here serves ${first.label}${features ? ` with ${features}` : ''}`;
}

/**
 * For a translation within one base language (zh-TW -> zh-CN, a script conversion), an
 * engine naming the pair beats an any-pair ("*") engine: the conversion is exact there,
 * a language model only paraphrases.
 */
export function sameLanguageConversion(need: Need): boolean {
  return need.kind === 'translator' && baseLanguage(need.from) === baseLanguage(need.to);
}

export function namesPairExplicitly(e: AnyEngine, from: string, to: string): boolean {
  return (e.capabilities.pairs ?? []).some(([f, t]) => f !== '*' && t !== '*' && languageServes(f, from) && languageServes(t, to));
}
