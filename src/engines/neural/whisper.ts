/**
 * 'neural/whisper': Whisper (faster-whisper, CTranslate2 int8 on the CPU) served by the engine
 * host (../host/engine-host.ts), one process per Parley process with the model loaded once
 * and shared by every live session and import. Three faces:
 * - file recognition (imports, reprocessing; the priority 'batch');
 * - live captions: the live-from-file face (streaming/over-file.ts) re-transcribes each
 *   utterance as it grows, with the priority 'live' so the host serves it before imports;
 * - spoken-language identification (neural/whisper-language-id, conversation mode).
 * Glossary terms go to the decoder as the prompt and as hotwords. Languages: the 99 the model
 * reports in its ready line (an English-only model reports ["en"]).
 *
 * PARLEY_WHISPER_URL points at a host already running elsewhere instead (at scale: engine
 * machines of their own, like any remote engine); its languages come from /health.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { baseLanguage, languageServes, normalizeLanguage } from '../../languages.js';
import { EngineHost } from '../host/engine-host.js';
import { ENGINE_HOST_PACKAGE, ENGINE_HOST_PYTHON } from '../models/paths.js';
import type { EngineContext, EngineFactory } from '../registry.js';
import { sttError } from '../remote/errors.js';
import type { RemoteEndpoint } from '../remote/http.js';
import { remoteFetch } from '../remote/http.js';
import { createTranscriptionApi, type FittedWindow } from '../remote/openai-transcription.js';
import { pcmToWav } from '../remote/wav.js';
import type { FileRecognizer, LanguageGuess, PcmAudio, SpokenLanguageIdentifier } from '../types.js';

export const WHISPER_ID = 'neural/whisper';

export { ENGINE_HOST_PACKAGE, ENGINE_HOST_PYTHON };

/** Where the Whisper model of these settings lives. */
export function whisperModelDir(ctx: Pick<EngineContext, 'config' | 'modelsDir'>): string {
  const e = ctx.config.engines;
  return e.whisperModelDir ?? `${ctx.modelsDir}/whisper-${e.whisperModel}`;
}

/**
 * The draft model's folder, beside the main model's, when one is chosen and installed (else drafts use the main model;
 * the start-up line of the engine list says which).
 */
export function whisperDraftModelDir(ctx: Pick<EngineContext, 'config' | 'modelsDir'>): string | null {
  const e = ctx.config.engines;
  if (e.whisperDraftModel === 'none' || e.whisperDraftModel === e.whisperModel) return null;
  // Beside the main model (setup installs both into the models folder).
  const dir = join(dirname(whisperModelDir(ctx)), `whisper-${e.whisperDraftModel}`);
  return existsSync(`${dir}/model.bin`) ? dir : null;
}

/** The file recognizer with the endpoint it talks to (the language-id face shares it). */
export interface WhisperRecognizer extends FileRecognizer {
  readonly whisper: { endpoint: () => Promise<RemoteEndpoint>; model: string };
}

const isWhisper = (e: unknown): e is WhisperRecognizer =>
  typeof e === 'object' && e !== null && (e as { id?: string }).id === WHISPER_ID && 'whisper' in e;

export const whisperFactory: EngineFactory = {
  id: WHISPER_ID,
  kind: 'file-stt',
  tier: 'neural',
  summary:
    'Whisper (faster-whisper, int8 CPU) in the engine host: files, live captions (live-from-file), 99 languages (PARLEY_WHISPER, PARLEY_WHISPER_MODEL).',
  async create(ctx) {
    const e = ctx.config.engines;
    if (e.whisper === 'off') return { unavailable: 'PARLEY_WHISPER=off' };
    const timeoutMs = e.whisperTimeoutMs;
    const retries = e.remoteRetries;
    if (e.whisperUrl) {
      const baseUrl = e.whisperUrl;
      const health = await hostHealth(baseUrl);
      if ('unavailable' in health) return health;
      const ep: RemoteEndpoint = { baseUrl, model: health.model, timeoutMs, retries };
      return whisperRecognizer(health.model, health.languages, async () => ep, fittedWindow(e));
    }
    const modelDir = whisperModelDir(ctx);
    const python = e.engineHostPython ?? ENGINE_HOST_PYTHON;
    const missing = EngineHost.missing({ python, packageDir: ENGINE_HOST_PACKAGE, modelDir });
    if (missing) return { unavailable: missing };
    const draftModelDir = whisperDraftModelDir(ctx);
    const host = new EngineHost({
      python,
      packageDir: ENGINE_HOST_PACKAGE,
      modelDir,
      ...(draftModelDir ? { draftModelDir } : {}),
      threads: e.whisperThreads,
      workers: e.whisperWorkers,
      startTimeoutMs: e.whisperStartTimeoutMs,
      logger: ctx.logger,
    });
    let ready: Awaited<ReturnType<EngineHost['start']>>;
    try {
      ready = await host.start();
    } catch (err) {
      await host.close();
      return { unavailable: err instanceof Error ? err.message : String(err) };
    }
    const model = ready.model ?? `whisper-${e.whisperModel}`; // a host given --model-dir always names it
    ctx.logger.info(
      { model, draftModel: ready.draft_model ?? null },
      ready.draft_model ? `Whisper ${model}; live drafts in English by ${ready.draft_model}` : `Whisper ${model}`,
    );
    const engine = whisperRecognizer(
      model,
      ready.languages,
      async () => ({ baseUrl: await host.baseUrl(), model, timeoutMs, retries }),
      fittedWindow(e),
    );
    return {
      ...engine,
      transcribe: (audio, options) => host.request(() => engine.transcribe(audio, options)),
      close: () => host.close(),
    };
  },
};

function whisperRecognizer(
  model: string,
  languages: readonly string[],
  endpoint: () => Promise<RemoteEndpoint>,
  fitted: FittedWindow,
): WhisperRecognizer {
  const tags = languages.map((l) => normalizeLanguage(l)).filter((l): l is string => l !== null);
  const api = createTranscriptionApi({
    id: WHISPER_ID,
    tier: 'neural',
    languages: tags,
    detects: true,
    endpoint,
    hostExtensions: true,
    fitted,
  });
  return { ...api, whisper: { endpoint, model } };
}

const fittedWindow = (e: EngineContext['config']['engines']): FittedWindow => ({
  padSeconds: e.whisperDraftWindowPadSeconds,
  finalMinSeconds: e.whisperFittedFinalMinSeconds,
});

/** A running host's model and languages (GET /health), or why it cannot be used. */
async function hostHealth(baseUrl: string): Promise<{ model: string; languages: string[] } | { unavailable: string }> {
  const url = `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/health`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return { unavailable: `${url} answered ${res.status}` };
    const body = (await res.json()) as { model?: string; languages?: string[] };
    return { model: body.model ?? 'whisper', languages: body.languages ?? ['*'] };
  } catch (err) {
    return { unavailable: `cannot reach the engine host at ${url}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * 'neural/whisper-language-id': which language is spoken, from Whisper's own language token
 * probabilities (POST /v1/audio/language of the engine host), among candidates when given.
 */
export const whisperLanguageIdFactory: EngineFactory = {
  id: 'neural/whisper-language-id',
  kind: 'spoken-language-id',
  tier: 'neural',
  summary: 'Spoken-language identification by the Whisper model of neural/whisper (its language probabilities).',
  uses: ['file-stt'],
  async create(ctx) {
    const whisper = ctx.loaded.find(isWhisper);
    if (!whisper) return { unavailable: `needs ${WHISPER_ID}, which is not loaded` };
    return createWhisperLanguageId(whisper);
  },
};

interface LanguageAnswer {
  language?: string;
  probability?: number;
  candidates?: Array<{ language: string; probability: number }>;
}

export function createWhisperLanguageId(whisper: WhisperRecognizer): SpokenLanguageIdentifier {
  return {
    id: 'neural/whisper-language-id',
    kind: 'spoken-language-id',
    tier: 'neural',
    capabilities: { languages: whisper.capabilities.languages },
    async identify(audio: PcmAudio, candidates?: readonly string[]): Promise<LanguageGuess[]> {
      // Whisper decides from the first 30 s; more only costs upload time.
      const head = { sampleRate: audio.sampleRate, samples: audio.samples.subarray(0, audio.sampleRate * 30) };
      const wav = pcmToWav(head);
      let body: LanguageAnswer;
      try {
        const ep = await whisper.whisper.endpoint();
        const res = await remoteFetch(ep, {
          method: 'POST',
          path: '/audio/language',
          body: () => {
            const form = new FormData();
            form.set('file', new Blob([wav], { type: 'audio/wav' }), 'audio.wav');
            form.set('priority', 'live');
            if (candidates?.length) form.set('languages', [...new Set(candidates.map(baseLanguage))].join(','));
            return form;
          },
        });
        body = (await res.json()) as LanguageAnswer;
      } catch (err) {
        throw sttError(err, 'neural/whisper-language-id');
      }
      const guesses = (body.candidates ?? []).flatMap((c) => {
        const code = normalizeLanguage(c.language);
        if (!code) return [];
        // A candidate tag ("de-DE") is reported for its base language ("de").
        const language = candidates?.length ? candidates.find((x) => languageServes(code, x)) : code;
        return language ? [{ language, confidence: c.probability }] : [];
      });
      return guesses;
    },
  };
}
