/** What every engine is (types.ts has every kind's interface). */

export type EngineTier = 'builtin' | 'neural' | 'remote';

export type EngineKind =
  | 'streaming-stt'
  | 'file-stt'
  | 'vad'
  | 'diarizer'
  | 'language-id'
  | 'spoken-language-id'
  | 'translator'
  | 'llm'
  | 'summarizer'
  | 'tts';

export interface EngineCapabilities {
  /** Languages served (normalized tags; a bare "en" serves every "en-*"; "*" serves all). */
  languages: readonly string[];
  /** Translators: the directed pairs served directly (pivoting is done by the registry). */
  pairs?: ReadonlyArray<readonly [from: string, to: string]>;
  streaming?: boolean;
  interimResults?: boolean;
  wordTimes?: boolean;
  diarization?: boolean;
  /** Recognizers: channels one stream recognizes (default 1). */
  channels?: number;
  /**
   * Recognizers: tells the spoken language itself. Given several candidate `languages`, each
   * utterance is recognized in the one spoken and reported as `detectedLanguage` (multi_language).
   */
  languageDetection?: boolean;
  /** Summarizers: follows free-form instructions (a custom prompt); false for extractive ones. */
  instructions?: boolean;
  /**
   * Summarizers: should write the built-in templates' summaries. False for an LLM measured worse
   * at them than the extractive summarizer (bench:summary): the registry then prefers another
   * summarizer for template summaries and keeps this one for custom prompts.
   */
  templates?: boolean;
}

export interface Engine {
  /** Stable id, "<tier>/<name>", e.g. "builtin/pocketsphinx". */
  readonly id: string;
  readonly kind: EngineKind;
  readonly tier: EngineTier;
  readonly capabilities: EngineCapabilities;
  /** Releases processes, native handles and models. Idempotent. */
  close?(): Promise<void>;
}

// --- Audio -------------------------------------------------------------------------------
