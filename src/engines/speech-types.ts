/** Audio, recognition, voice activity, speakers and language identification engines (see types.ts). */
import type { Engine } from './engine.js';

/** Decoded audio: mono float samples in [-1, 1]. */
export interface PcmAudio {
  sampleRate: number;
  samples: Float32Array;
}

/**
 * Audio read in pieces, such as a recording decoded to a file: an engine that can work a
 * part at a time reads only the part it needs, so its memory does not grow with the length.
 */
export interface PcmSource {
  readonly sampleRate: number;
  readonly durationMs: number;
  /** Samples from `startMs` for `lengthMs` (shorter at the end). */
  read(startMs: number, lengthMs: number): PcmAudio;
}

export interface Word {
  text: string;
  startMs: number;
  endMs: number;
  confidence?: number;
}

// --- Speech to text ----------------------------------------------------------------------

export interface SttResult {
  text: string;
  isFinal: boolean;
  /** Offsets from the start of the stream. */
  startMs: number;
  endMs: number;
  words?: Word[];
  speakerId?: string;
  detectedLanguage?: string;
  /** The input channel the result was heard on (copied from the open options; see streaming/labels.ts). */
  channel?: number;
  /**
   * The utterance (sentence) this result belongs to, counting from 0 in a stream. A recognizer
   * that numbers its utterances may send interims of the next utterance before the previous
   * one's final (its finals still come in utterance order, and an earlier utterance's first
   * result comes before a later one's), and says with a final of empty text that an utterance
   * it showed interims of came to nothing. Without it, results are in utterance order: a final
   * closes the sentence its interims began.
   */
  utterance?: number;
}

export interface StreamingSttOptions {
  language: string;
  /** Deliver interim (non-final) hypotheses. */
  interimResults: boolean;
  /**
   * Results in utterance order even from a recognizer that numbers its utterances: the next
   * utterance's interims wait for the previous final. multi_speaker asks for it: a final split
   * at a speaker change takes further sentence numbers, which must come before the next
   * utterance's.
   */
  inUtteranceOrder?: boolean;
  /**
   * Labels copied onto every result of this stream, so a multi-channel or multi-speaker
   * session runs one stream per channel (or per known speaker) and still knows where each
   * result belongs. Engines need not read them: `openLabelled` (streaming/labels.ts) applies them.
   */
  channel?: number;
  speakerId?: string;
  /**
   * multi_language: the candidate languages (two or more). Recognizers declaring
   * `languageDetection` recognize each utterance in whichever is spoken and set
   * `detectedLanguage`; `language` is then the fallback when what is heard is none of them.
   */
  languages?: readonly string[];
  onResult: (result: SttResult) => void;
  /** Asynchronous failures after open (engine crash, lost connection). */
  onError: (error: Error) => void;
  /**
   * Glossary terms (written form) to favour in recognition; words a recognizer does not
   * know are added for this stream only. Recognizers without hot words ignore them.
   */
  terms?: readonly string[];
  /**
   * Backpressure: the most audio (ms) that may wait for recognition (accepted but not yet
   * decoded, finals included). Past it, new audio is not recognized until the backlog is back
   * under half the limit (docs/live-modes.md, "When recognition falls behind"). Unset: no bound.
   * Engines that decode within `write` (no queue) ignore it.
   */
  maxBacklogMs?: number;
  /** Called once when the stream starts dropping audio (one call per episode, see maxBacklogMs). */
  onAudioDropped?: (info: { backlogMs: number; limitMs: number }) => void;
}

export interface RecognizerStream {
  /** Feed 16 kHz mono signed 16-bit PCM, any chunk size. Never blocks on recognition. */
  write(pcm: Int16Array): void;
  /** Finalizes the utterance in progress (its final result is delivered) and releases the stream. */
  end(): Promise<void>;
  /** Drops everything at once; no more results. */
  abort(): void;
  /** Replaces the terms (see StreamingSttOptions.terms) from the next utterance on. */
  setTerms?(terms: readonly string[]): void;
}

export interface StreamingRecognizer extends Engine {
  readonly kind: 'streaming-stt';
  open(options: StreamingSttOptions): Promise<RecognizerStream>;
}

export interface FileTranscriptSegment {
  text: string;
  startMs: number;
  endMs: number;
  words: Word[];
  speakerId?: string;
}

export interface FileTranscript {
  text: string;
  language: string;
  segments: FileTranscriptSegment[];
  durationMs: number;
}

export interface FileSttOptions {
  language: string;
  /**
   * Candidate languages (recognizers declaring `languageDetection`): the transcript is in
   * whichever is spoken and its `language` says which; when the recognizer hears a language
   * outside them, it recognizes again in `language`.
   */
  languages?: readonly string[];
  signal?: AbortSignal;
  /** Progress 0..1 for long files. */
  onProgress?: (fraction: number) => void;
  /** Glossary terms to favour, as in StreamingSttOptions.terms. */
  terms?: readonly string[];
  /**
   * Who waits for the result: a live session (its captions) or a batch job (an import). A
   * recognizer shared by both serves live work first (the engine host queues by it).
   */
  priority?: 'live' | 'batch';
  /**
   * A draft: an interim pass over an utterance still growing, which the final pass will redo.
   * A recognizer may trade accuracy for speed here (the engine host: greedy search, an encoder
   * window fitted to the audio instead of Whisper's 30 s).
   */
  draft?: boolean;
  /**
   * A draft the main model makes, not a smaller draft model: audio a small model may not hear
   * (streaming/over-file.ts: loud speech the VAD missed, energy-gate.ts).
   */
  mainModel?: boolean;
  /**
   * The live stream a pass belongs to (an opaque id): the engine host drops the stream's drafts
   * still queued when a pass that is not a draft (its final) comes, since they would only be
   * decoded after it; such a draft fails (409 superseded).
   */
  stream?: string;
}

export interface FileRecognizer extends Engine {
  readonly kind: 'file-stt';
  transcribe(audio: PcmAudio, options: FileSttOptions): Promise<FileTranscript>;
}

// --- Voice activity, speakers, language id ------------------------------------------------

export interface SpeechSegment {
  startMs: number;
  endMs: number;
}

/** A speech_end may carry where that stretch of speech began (refined after the fact). */
export type VadEvent = { type: 'speech_start'; atMs: number } | { type: 'speech_end'; atMs: number; startMs?: number };

export interface VadStream {
  /** Feed 16 kHz mono float samples; returns the boundaries found in them. */
  write(samples: Float32Array): VadEvent[];
  /** Ends the stream; closes an open speech segment. */
  flush(): VadEvent[];
}

export interface VoiceActivityDetector extends Engine {
  readonly kind: 'vad';
  segments(audio: PcmAudio): Promise<SpeechSegment[]>;
  openStream(): VadStream;
}

export interface SpeakerTurn {
  startMs: number;
  endMs: number;
  /** Stable within one result: "1", "2", ... in order of first appearance. */
  speakerId: string;
}

export interface DiarizeOptions {
  /** Known number of speakers, if any. */
  numSpeakers?: number;
  signal?: AbortSignal;
}

export interface Diarizer extends Engine {
  readonly kind: 'diarizer';
  /** A source is read a part at a time where the engine can (the classic diarizer: bounded memory). */
  diarize(audio: PcmAudio | PcmSource, options?: DiarizeOptions): Promise<SpeakerTurn[]>;
  /** Live diarization of one session (diarizers that can label speech as it arrives). */
  openLive?(): LiveDiarization;
}

export interface SpeakerPiece {
  /** Milliseconds of the audio written so far. */
  startMs: number;
  endMs: number;
  speakerId: string;
}

/** Speakers of a live session, from 16 kHz mono PCM written as it arrives; bounded memory. */
export interface LiveDiarization {
  write(pcm: Int16Array): void;
  /** The speaker of the latest audio of [fromMs, toMs) (an utterance in progress); nothing is learnt. Null: too little speech yet. */
  current(fromMs: number, toMs: number): string | null;
  /** The speakers of a finished utterance [fromMs, toMs), in time order; learnt, and the audio before toMs released. */
  commit(fromMs: number, toMs: number): SpeakerPiece[];
  /**
   * Pieces of earlier commits whose speaker changed since (what more speech taught), each once:
   * the session relabels the finals they cover. Optional: diarizers that never revise omit it.
   */
  corrections?(): SpeakerCorrection[];
}

/** An earlier committed piece now judged to be another speaker. */
export interface SpeakerCorrection extends SpeakerPiece {
  previousSpeakerId: string;
}

export interface LanguageGuess {
  language: string;
  confidence: number;
}

export interface TextLanguageIdentifier extends Engine {
  readonly kind: 'language-id';
  identify(text: string, candidates?: readonly string[]): Promise<LanguageGuess[]>;
}

export interface SpokenLanguageIdentifier extends Engine {
  readonly kind: 'spoken-language-id';
  identify(audio: PcmAudio, candidates?: readonly string[]): Promise<LanguageGuess[]>;
}
