/** Translation, language models, summaries and speech synthesis engines (see types.ts). */
import type { Engine } from './engine.js';

// --- Translation --------------------------------------------------------------------------

export interface TranslateOptions {
  from: string;
  to: string;
  signal?: AbortSignal;
}

export interface Translator extends Engine {
  readonly kind: 'translator';
  translate(text: string, options: TranslateOptions): Promise<string>;
}

// --- LLM and summaries ----------------------------------------------------------------------

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface ChatOptions {
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Called with each streamed piece of text. */
  onDelta?: (delta: string) => void;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  /** True when the output stopped at the length limit. */
  truncated: boolean;
}

export interface LanguageModel extends Engine {
  readonly kind: 'llm';
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
}

export interface SummaryTemplateSpec {
  slug: string;
  systemPrompt: string;
  templatePrompt: string;
  /** The sections to fill, e.g. "## Key points\n## Decisions\n## Action items". */
  outputFormat: string;
}

export interface SummarizeOptions {
  /** Transcript segments in order (their indexes are what fallback level 3 reports). */
  segments: string[];
  /** Output language (normalized tag). */
  language: string;
  template?: SummaryTemplateSpec;
  /** Custom mode: the caller's prompt, used instead of the template prompt. */
  customPrompt?: string;
  plainText: boolean;
  signal?: AbortSignal;
  onDelta?: (cumulativeText: string) => void;
}

export interface SummaryResult {
  text: string;
  usage: TokenUsage;
  truncated: boolean;
  /** 2: neutral instructions were used; 3: offending segments were omitted. */
  fallbackLevel?: 2 | 3;
  droppedSegments?: number[];
  /** The text was too short to summarize: `text` is the cleaned text itself (not charged as a summary). */
  tooShort?: boolean;
}

export interface Summarizer extends Engine {
  readonly kind: 'summarizer';
  summarize(options: SummarizeOptions): Promise<SummaryResult>;
}

// --- Text to speech -------------------------------------------------------------------------

export interface Voice {
  voice_name: string;
  display_name: string;
  gender: 'Female' | 'Male';
  is_default: boolean;
  language: string;
}

export interface WordBoundary {
  offset_ms: number;
  duration_ms: number;
  text: string;
  /** Character offset of the word in the input text. */
  text_offset: number;
  word_length: number;
}

export interface SynthesizeOptions {
  language: string;
  /** voice_name; the language's default voice when absent. */
  voice?: string;
  /** 0.5..2.0; out-of-range values are clamped. */
  speakingRate?: number;
  signal?: AbortSignal;
}

export interface SynthesisResult {
  mp3: Buffer;
  durationMs: number;
  boundaries: WordBoundary[];
}

/**
 * One sentence of a streamed synthesis: a self-contained MP3 (playable alone, as the
 * per-sentence `tts_audio` events need) placed on the timeline of the whole text.
 */
export interface SynthesisChunk {
  /** The sentence, and where it starts in the input text (UTF-16 index). */
  text: string;
  textOffset: number;
  mp3: Buffer;
  /** Where the sentence starts in the audio of the whole text, and how long it lasts. */
  startMs: number;
  durationMs: number;
  /** Boundaries on the whole text's timeline and character offsets (like `SynthesisResult`). */
  boundaries: WordBoundary[];
}

export interface Synthesizer extends Engine {
  readonly kind: 'tts';
  voices(language: string): Voice[];
  synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult>;
  /**
   * Sentence by sentence, each yielded as soon as it is ready. Optional: callers use
   * `synthesisStream` (tts-stream.ts), which falls back to one `synthesize` per sentence.
   */
  synthesizeStream?(text: string, options: SynthesizeOptions): AsyncIterable<SynthesisChunk>;
}
