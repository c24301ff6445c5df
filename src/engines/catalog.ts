/**
 * Every engine Parley knows, one line each. Adding an engine = one file under
 * builtin/, neural/ or remote/ exporting an `EngineFactory`, plus one line here.
 * Order matters: for each (kind, language) the registry picks the first enabled engine
 * that serves it, so stronger engines come first; a factory returns `{unavailable}` when it
 * cannot run on this host (no model downloaded, no base URL configured, binary missing),
 * and `npm run -s engines -- list` shows why.
 */
import { apertiumFactory } from './builtin/apertium.js';
import { classicDiarizerFactory } from './builtin/diarizer/index.js';
import { espeakFactory } from './builtin/espeak.js';
import { extractiveSummarizerFactory } from './builtin/extractive-summarizer.js';
import { openccFactory } from './builtin/opencc.js';
import { pocketsphinxFileFactory, pocketsphinxStreamingFactory } from './builtin/pocketsphinx/index.js';
import { sileroVadFactory } from './builtin/silero-vad.js';
import { textLanguageIdFactory } from './builtin/text-language-id.js';
import { llamaCppFactory, llamaTranslatorFactory } from './neural/llama-cpp.js';
import { sherpaDiarizationFactory } from './neural/sherpa-diarization.js';
import { sherpaLanguageIdFactory } from './neural/sherpa-language-id.js';
import { sherpaOfflineFactory } from './neural/sherpa-offline.js';
import { sherpaStreamingFactory } from './neural/sherpa-streaming.js';
import { sherpaTtsFactory } from './neural/sherpa-tts.js';
import type { EngineFactory } from './registry.js';
import { openAiChatFactory } from './remote/openai-chat.js';
import { openAiSpeechFactory } from './remote/openai-speech.js';
import { openAiTranscriptionFactory } from './remote/openai-transcription.js';
import { openAiTranslatorFactory } from './remote/openai-translator.js';
import { liveFromFile } from './streaming/factory.js';
import { llmSummarizerFactory } from './summary/factory.js';

export const CATALOG: EngineFactory[] = [
  // Configured remote services and downloaded neural models win over the built-in engines.
  openAiChatFactory,
  llamaCppFactory,
  llmSummarizerFactory,
  openAiTranscriptionFactory,
  sherpaStreamingFactory,
  // Streaming faces of file recognizers (when listed in PARLEY_LIVE_FROM_FILE_ENGINES): after the
  // true streaming engines, whose interims come sooner, but before the built-in tier.
  liveFromFile(openAiTranscriptionFactory),
  liveFromFile(sherpaOfflineFactory),
  sherpaOfflineFactory,
  sherpaDiarizationFactory,
  sherpaLanguageIdFactory,
  openAiSpeechFactory,
  sherpaTtsFactory,
  sileroVadFactory,
  // After the neural diarizer: used when no embedding model is downloaded.
  classicDiarizerFactory,
  pocketsphinxStreamingFactory,
  pocketsphinxFileFactory,
  // OpenCC before the any-pair LLM translators: script conversion (zh-TW <-> zh-CN) is exact there.
  openccFactory,
  openAiTranslatorFactory,
  llamaTranslatorFactory,
  apertiumFactory,
  textLanguageIdFactory,
  espeakFactory,
  // Last of the summarizers: used only when no LLM summarizer is configured.
  extractiveSummarizerFactory,
];
