/**
 * 'remote/openai-transcription': POST /audio/transcriptions (multipart, WAV upload) with
 * response_format=verbose_json and word + segment timestamps, as OpenAI, speaches,
 * LocalAI and faster-whisper servers accept. Words are attached to the segment whose time
 * span holds them.
 *
 * Language detection (multi_language, `options.languages`): the request names no language, so
 * a Whisper server detects it and reports it (verbose_json `language`); the transcript's
 * `language` is the candidate with that base language. A language outside the candidates is
 * never passed on as one of them: the audio is transcribed again in `options.language`.
 * Servers that need the language are configured with PARLEY_REMOTE_STT_LANGUAGE_DETECTION=false
 * (the engine then does not declare detection, and multi_language is refused at start).
 */
import { baseLanguage, normalizeLanguage } from '../../languages.js';
import type { EngineFactory } from '../registry.js';
import type { EngineTier, FileRecognizer, FileSttOptions, FileTranscript, FileTranscriptSegment, PcmAudio, Word } from '../types.js';
import { NOT_CONFIGURED, remoteEndpoint } from './endpoints.js';
import { sttError } from './errors.js';
import { bodyFailure, type RemoteEndpoint, remoteFetch } from './http.js';
import { pcmToWav } from './wav.js';

interface Verbose {
  text?: string;
  language?: string;
  /** The engine host's extension: the ISO code beside the name (every Whisper language, not only the common ones). */
  language_code?: string;
  duration?: number;
  segments?: Array<{ start: number; end: number; text: string }>;
  words?: Array<{ word: string; start: number; end: number }>;
}

/** verbose_json reports the language as an English name ("english"); map it back to a tag. */
function languageTag(reported: string | undefined, requested: string): string {
  return reportedTag(reported) ?? requested;
}

/** The tag of a reported language (a name or a code); null when not recognizable. */
function reportedTag(reported: string | undefined): string | null {
  if (!reported) return null;
  const direct = normalizeLanguage(reported);
  if (direct && direct.length <= 3) return direct;
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  for (const code of [
    'en',
    'zh',
    'ja',
    'ko',
    'es',
    'fr',
    'de',
    'it',
    'pt',
    'ru',
    'ar',
    'hi',
    'nl',
    'pl',
    'tr',
    'uk',
    'vi',
    'ca',
    'sv',
    'id',
  ])
    if (names.of(code)?.toLowerCase() === reported.toLowerCase()) return code;
  return null;
}

/** The candidate a reported language is (same base language: "english" is en-US when en-US was asked). */
function candidateFor(reported: string | undefined, candidates: readonly string[]): string | null {
  const tag = reportedTag(reported);
  return tag ? (candidates.find((c) => baseLanguage(c) === baseLanguage(tag)) ?? null) : null;
}

export function createOpenAiTranscription(ep: RemoteEndpoint, id = 'remote/openai-transcription', detects = true): FileRecognizer {
  return createTranscriptionApi({ id, tier: 'remote', languages: ['*'], detects, endpoint: () => ep });
}

/** A file recognizer over an OpenAI-compatible transcription API (a remote server or the engine host). */
export interface TranscriptionApi {
  id: string;
  tier: EngineTier;
  languages: readonly string[];
  /** The server tells the spoken language (multi_language). */
  detects: boolean;
  /** The endpoint of each request (the engine host's port can change when it restarts). */
  endpoint: () => RemoteEndpoint | Promise<RemoteEndpoint>;
  /**
   * The engine host's extensions (docs/whisper.md): glossary terms as `hotwords` besides the
   * prompt, `priority` (live before batch) and the candidate `languages` of a detection.
   */
  hostExtensions?: boolean;
  /** Live passes in a fitted encoder window on the engine host (see `fittedWindow`). */
  fitted?: FittedWindow;
}

/**
 * When a live pass asks the engine host for an encoder window fitted to the audio (plus `padSeconds`
 * of silence) instead of Whisper's 30 s one (docs/whisper.md, "Fitted window"): drafts always
 * (a loop is trimmed: the final redoes them), live finals of at least `finalMinSeconds` (a loop
 * is decoded again in the 30 s window; shorter utterances loop more often, so they get the 30 s
 * window at once). Imports (priority batch) always get the 30 s window. padSeconds 0: never.
 * A draft the main model must make (`mainModel`) says draft_model=off: the host would otherwise
 * give a fitted English draft to its smaller draft model.
 */
export interface FittedWindow {
  padSeconds: number;
  finalMinSeconds: number;
}

/** The engine host's window fields of one pass (none: Whisper's 30 s window). */
export function windowFields(fitted: FittedWindow | undefined, options: FileSttOptions, seconds: number): Record<string, string> {
  if (!fitted || fitted.padSeconds <= 0) return {};
  const pad = String(fitted.padSeconds);
  if (options.draft)
    return { beam_size: '1', window_pad: pad, window_fallback: 'trim', ...(options.mainModel ? { draft_model: 'off' } : {}) };
  const liveFinal = options.priority === 'live' && fitted.finalMinSeconds > 0 && seconds >= fitted.finalMinSeconds;
  return liveFinal ? { window_pad: pad, window_fallback: 'full' } : {};
}

export function createTranscriptionApi(api: TranscriptionApi): FileRecognizer {
  const once = transcribeOnce(api);
  return {
    id: api.id,
    kind: 'file-stt',
    tier: api.tier,
    capabilities: { languages: api.languages, wordTimes: true, languageDetection: api.detects },
    async transcribe(audio, options): Promise<FileTranscript> {
      const candidates = api.detects && options.languages && options.languages.length > 1 ? options.languages : null;
      if (!candidates) return withoutReported(await once(audio, options));
      const heard = await once(audio, { ...options, language: '*' });
      const language = candidateFor(heard.reported, candidates);
      if (language) return { ...withoutReported(heard), language };
      // Heard none of the candidates: recognized again in the fallback, never mislabelled.
      return withoutReported(await once(audio, options));
    },
  };
}

/** Whisper continues a prompt's style and spelling: the terms as a short list of names. */
export function termsPrompt(terms: readonly string[]): string {
  return `${terms.join(', ')}.`;
}

const withoutReported = ({ reported: _, ...t }: FileTranscript & { reported?: string }): FileTranscript => t;

/** One request; `language` '*' sends none (the server detects it). */
function transcribeOnce(api: TranscriptionApi) {
  const id = api.id;
  return async (audio: PcmAudio, options: FileSttOptions): Promise<FileTranscript & { reported?: string }> => {
    const wav = pcmToWav(audio);
    const durationMs = Math.round((audio.samples.length / audio.sampleRate) * 1000);
    let body: Verbose;
    try {
      const ep = await api.endpoint();
      const res = await remoteFetch(ep, {
        method: 'POST',
        path: '/audio/transcriptions',
        signal: options.signal,
        body: () => {
          const form = new FormData();
          form.set('file', new Blob([wav], { type: 'audio/wav' }), 'audio.wav');
          form.set('model', ep.model);
          form.set('response_format', 'verbose_json');
          form.append('timestamp_granularities[]', 'word');
          form.append('timestamp_granularities[]', 'segment');
          if (options.language && options.language !== '*') form.set('language', baseLanguage(options.language));
          // Glossary terms bias the decoder: as the prompt (every Whisper server), as hotwords (the engine host).
          if (options.terms?.length) form.set('prompt', termsPrompt(options.terms));
          if (api.hostExtensions) {
            if (options.terms?.length) form.set('hotwords', options.terms.join(' '));
            form.set('priority', options.priority ?? 'batch');
            if (options.stream) form.set('stream', options.stream);
            // Drafts: greedy search (docs/whisper.md); live passes: the fitted window.
            if (options.draft) form.set('beam_size', '1');
            for (const [k, v] of Object.entries(windowFields(api.fitted, options, durationMs / 1000))) form.set(k, v);
            if (options.language === '*' && options.languages?.length)
              form.set('languages', [...new Set(options.languages.map(baseLanguage))].join(','));
          }
          return form;
        },
      });
      body = (await res.json().catch((err: unknown) => {
        throw bodyFailure(err, ep, options.signal);
      })) as Verbose;
    } catch (err) {
      throw sttError(err, id);
    }
    options.onProgress?.(1);
    const words: Word[] = (body.words ?? []).map((w) => ({
      text: w.word.trim(),
      startMs: Math.round(w.start * 1000),
      endMs: Math.round(w.end * 1000),
    }));
    const raw = body.segments?.length ? body.segments : [{ start: 0, end: body.duration ?? durationMs / 1000, text: body.text ?? '' }];
    const segments: FileTranscriptSegment[] = raw
      .map((s) => {
        const startMs = Math.round(s.start * 1000);
        const endMs = Math.round(s.end * 1000);
        return { text: s.text.trim(), startMs, endMs, words: words.filter((w) => w.startMs >= startMs && w.startMs < endMs) };
      })
      .filter((s) => s.text);
    return {
      text: (body.text ?? segments.map((s) => s.text).join(' ')).trim(),
      language: languageTag(body.language_code ?? body.language, options.language),
      reported: body.language_code ?? body.language,
      segments,
      durationMs: body.duration ? Math.round(body.duration * 1000) : durationMs,
    };
  };
}

export const openAiTranscriptionFactory: EngineFactory = {
  id: 'remote/openai-transcription',
  kind: 'file-stt',
  tier: 'remote',
  summary: 'OpenAI-compatible /audio/transcriptions (PARLEY_REMOTE_STT_URL): Whisper servers such as speaches, LocalAI, OpenAI.',
  async create(ctx) {
    const ep = remoteEndpoint(ctx.config, 'stt');
    return ep
      ? createOpenAiTranscription(ep, undefined, ctx.config.engines.remoteSttLanguageDetection)
      : { unavailable: NOT_CONFIGURED('PARLEY_REMOTE_STT_URL') };
  },
};
