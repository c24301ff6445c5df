/**
 * Audio behind one interface. The composition root builds the implementation
 * (`createFfmpegAudio` in ffmpeg-audio.ts, on ffmpeg today) and hands it to the features that
 * decode, measure or encode audio; they never run ffmpeg nor know where its binary is. Another
 * backend (a library, a remote service) implements this interface and is chosen in src/app.ts.
 * All PCM is 16 kHz mono (float samples, or s16le on disk); every call can be aborted.
 */
import type { Readable } from 'node:stream';
import type { EngineError } from '../errors.js';
import type { PcmAudio } from '../types.js';

/** Every PCM the interface gives or writes: 16 kHz mono. */
export const PCM_SAMPLE_RATE = 16_000;

export type EncodeFormat = 'mp3' | 'm4a';

/**
 * Thrown when a decode writes more than its `maxBytes`: the audio is longer than the caller
 * allows (a duration or temporary-disk limit). The partial output is already removed.
 */
export class OutputLimitError extends Error {
  readonly retryable = false;
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the decoded audio passed the limit of ${limit} bytes`);
    this.name = 'OutputLimitError';
  }
}

/** What a file's first audio stream claims in its header. */
export interface StreamHeader {
  codec: string;
  /** Hz, as the header says (the caller checks it is one speech audio uses). */
  sampleRate: number;
  channels: number;
}

/** What a file's first audio stream claims in its header, and what decoding it really gives. */
export interface ProbeResult {
  /** Measured by decoding (never a header's claim); past `maxDurationMs` the count stops (`over`). */
  durationMs: number;
  over: boolean;
  channels: number;
  /** The header's sample rate (Hz); the caller checks it is one speech audio uses. */
  sampleRate: number;
  codec: string;
}

export interface AudioOptions {
  signal?: AbortSignal;
  /** Hard limit for one run (a corrupt or endless input never hangs the caller). */
  timeoutMs?: number;
}

/** Browser MediaRecorder chunks in, PCM out, as they arrive (one live session). */
export interface LiveAudioDecoder {
  write(chunk: Buffer): void;
  /** Decodes what is buffered, then stops. */
  end(): Promise<void>;
  abort(): void;
}

export interface AudioTools {
  /** The first audio stream's header, without decoding (audio_invalid_format when there is none). */
  inspect(path: string, o?: AudioOptions): Promise<StreamHeader>;
  /**
   * Duration (ms, measured by decoding: exact for VBR files), channel count and sample rate of
   * a file. With `maxDurationMs` decoding stops just past it (`over`), so the cost is bounded.
   */
  probe(path: string, o?: AudioOptions & { maxDurationMs?: number }): Promise<ProbeResult>;
  /** A file or bytes decoded whole (the mix, or one `channel` of a multi-channel input). */
  decode(input: string | Buffer, o?: AudioOptions & { channel?: number }): Promise<PcmAudio>;
  /** Each channel of a file as its own mono PCM (per-channel recognition). */
  splitChannels(path: string, o?: AudioOptions): Promise<PcmAudio[]>;
  /**
   * A file decoded to raw s16le PCM at `outPath`, streaming (a 10-hour file never sits in
   * memory). Past `maxBytes` written it stops, removes the file and throws OutputLimitError.
   */
  decodeToFile(input: string, outPath: string, o?: AudioOptions & { maxBytes?: number }): Promise<{ bytes: number }>;
  /** A file or byte stream decoded chunk by chunk, pulled by the consumer. */
  decodeStream(input: string | Readable, o?: AudioOptions & { chunkSamples?: number }): AsyncGenerator<Float32Array>;
  /** Live container audio (WebM/Opus): PCM as s16 samples; a broken container reports through onError. */
  liveDecoder(o: { onPcm: (pcm: Int16Array) => void; onError: (err: EngineError) => void }): LiveAudioDecoder;
  /**
   * PCM or a file encoded into `outPath` (M4A with its index at the front, for streaming
   * playback). An output that reaches `maxBytes` is removed and OutputLimitError thrown.
   */
  encodeFile(
    input: { pcm: PcmAudio } | { path: string },
    outPath: string,
    format: EncodeFormat,
    o?: AudioOptions & { maxBytes?: number },
  ): Promise<void>;
  /** PCM encoded to MP3 bytes. */
  encodeMp3(pcm: PcmAudio, o?: AudioOptions): Promise<Buffer>;
  /**
   * A file as an MP3 stream at the reader's pace (downloads). The stream errors when encoding
   * fails, so a broken download is never taken for a whole one; `onClose` runs when it is over.
   */
  mp3Stream(path: string, o: { bitrate: string; onError: (err: Error) => void; onClose: () => void }): Readable;
}
