/**
 * Every engine Parley knows, one line each. Adding an engine = one file under
 * builtin/, neural/ or remote/ exporting an `EngineFactory`, plus one line here.
 * The registry prefers tiers in PARLEY_ENGINE_TIERS order; within a tier, the order here
 * decides, so stronger engines come first. A factory returns `{unavailable}` when it cannot
 * run on this host (no model downloaded, no base URL configured, binary missing), and
 * `npm run -s engines` shows why. A factory wrapping other engines lists their kinds in
 * `uses` and comes after them (it receives them as `ctx.loaded`).
 */
import { apertiumFactory } from './builtin/apertium.js';
import { classicDiarizerFactory } from './builtin/diarizer/index.js';
import { espeakFactory } from './builtin/espeak.js';
import { extractiveSummarizerFactory } from './builtin/extractive-summarizer.js';
import { openccFactory } from './builtin/opencc.js';
import { pocketsphinxFileFactory, pocketsphinxStreamingFactory } from './builtin/pocketsphinx/index.js';
import { sileroVadFactory } from './builtin/silero-vad.js';
import { textLanguageIdFactory } from './builtin/text-language-id.js';
import { kokoroTtsFactory } from './neural/kokoro-tts.js';
import { llamaCppFactory, llamaTranslatorFactory } from './neural/llama-cpp.js';
import { sherpaDiarizationFactory } from './neural/sherpa-diarization.js';
import { sherpaLanguageIdFactory } from './neural/sherpa-language-id.js';
import { sherpaOfflineFactory } from './neural/sherpa-offline.js';
import { sherpaStreamingFactory } from './neural/sherpa-streaming.js';
import { sherpaTtsFactory } from './neural/sherpa-tts.js';
import { whisperFactory, whisperLanguageIdFactory } from './neural/whisper.js';
import type { EngineFactory } from './registry.js';
import { openAiChatFactory } from './remote/openai-chat.js';
import { openAiSpeechFactory } from './remote/openai-speech.js';
import { openAiTranscriptionFactory } from './remote/openai-transcription.js';
import { openAiTranslatorFactory } from './remote/openai-translator.js';
import { liveFromFileFactory } from './streaming/factory.js';
import { llmSummarizerFactory } from './summary/factory.js';

export const CATALOG: EngineFactory[] = [
  // Configured remote services and downloaded neural models win over the built-in engines.
  openAiChatFactory,
  llamaCppFactory,
  llmSummarizerFactory,
  openAiTranscriptionFactory,
  // Whisper in the engine host: the default recognizer wherever `npm run setup` could install it.
  whisperFactory,
  sherpaStreamingFactory,
  sherpaOfflineFactory,
  sherpaDiarizationFactory,
  whisperLanguageIdFactory,
  sherpaLanguageIdFactory,
  openAiSpeechFactory,
  sherpaTtsFactory,
  // Japanese (Kokoro in an engine host of its own); eSpeak NG stays the fallback.
  kokoroTtsFactory,
  sileroVadFactory,
  // After the neural diarizer: used when no embedding model is downloaded.
  classicDiarizerFactory,
  pocketsphinxStreamingFactory,
  pocketsphinxFileFactory,
  // Streaming faces of the file recognizers above (PARLEY_LIVE_FROM_FILE_ENGINES); after them and the VAD,
  // which it wraps. Within a tier, after the true streaming engines, whose interims come sooner.
  liveFromFileFactory,
  // Script conversion (zh-TW <-> zh-CN) goes to OpenCC before any-pair LLM translators (registry rule).
  openccFactory,
  openAiTranslatorFactory,
  llamaTranslatorFactory,
  apertiumFactory,
  textLanguageIdFactory,
  espeakFactory,
  // Last of the summarizers: used only when no LLM summarizer is configured.
  extractiveSummarizerFactory,
];
