/**
 * Engine interfaces: one per engine kind. The domain (imports, live sessions, summaries,
 * TTS endpoints) depends only on these types and on the registry (`registry.ts`); it never
 * imports a concrete engine. Audio inside the engine layer is 16 kHz mono PCM unless a
 * type says otherwise. Languages are normalized BCP 47 tags (see `src/languages.ts`).
 *
 * Failures are thrown as `EngineError` (`errors.ts`), which carries a spec error code and
 * whether a retry may help.
 */

import type {
  Diarizer,
  FileRecognizer,
  SpokenLanguageIdentifier,
  StreamingRecognizer,
  TextLanguageIdentifier,
  VoiceActivityDetector,
} from './speech-types.js';
import type { LanguageModel, Summarizer, Synthesizer, Translator } from './text-types.js';

export * from './engine.js';
export * from './speech-types.js';
export * from './text-types.js';

export type AnyEngine =
  | StreamingRecognizer
  | FileRecognizer
  | VoiceActivityDetector
  | Diarizer
  | TextLanguageIdentifier
  | SpokenLanguageIdentifier
  | Translator
  | LanguageModel
  | Summarizer
  | Synthesizer;
