/**
 * A live recording's client audio as 16 kHz mono samples: `pcm` sessions send s16le bytes
 * (an odd trailing byte is kept and joined with the next chunk, so samples stay aligned),
 * `webm` sessions MediaRecorder chunks, decoded by the streaming decoder, opened with the
 * first chunk. Audio arriving while `accepting()` is false (before the recording began, after
 * it ended) is dropped.
 */
import type { AudioTools, LiveAudioDecoder } from '../../engines/audio/port.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { StartRequest } from '../start.js';

export interface AudioInputDeps {
  audio: Pick<AudioTools, 'liveDecoder'>;
  /** Sends an error to the owner's client (a container that does not decode). */
  error(err: AppError): void;
  /** Whether the recording takes audio now. */
  accepting(): boolean;
  /** Whole samples, in order. */
  samples(pcm: Int16Array): void;
}

export class AudioInput {
  /** For audio_format webm: decodes MediaRecorder chunks to PCM (streaming decoder). */
  private webm: LiveAudioDecoder | null = null;
  /** An odd trailing byte of a PCM chunk, joined with the next chunk. */
  private carry: Buffer | null = null;

  constructor(
    private readonly d: AudioInputDeps,
    private readonly format: StartRequest['audioFormat'],
  ) {}

  /** Client audio in the start's format: PCM goes straight in, WebM through the decoder. */
  write(chunk: Buffer): void {
    if (this.format === 'pcm') {
      this.pcm(chunk);
      return;
    }
    this.webm ??= this.d.audio.liveDecoder({
      onPcm: (pcm) => this.pcm(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)),
      // The recording goes on: the client may send a fresh container.
      onError: (err) => this.d.error(new AppError('audio_decode_failed', { variant: 'websocket', details: { reason: err.message } })),
    });
    this.webm.write(chunk);
  }

  private pcm(input: Buffer): void {
    if (!this.d.accepting()) return;
    const bytes = this.carry ? Buffer.concat([this.carry, input]) : input;
    const even = bytes.length - (bytes.length % 2);
    this.carry = even < bytes.length ? Buffer.from(bytes.subarray(even)) : null;
    if (even === 0) return;
    const samples = new Int16Array(even / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
    this.d.samples(samples);
  }

  /** `graceful`: the decoder delivers what it still holds; otherwise it is dropped. */
  async close(graceful: boolean): Promise<void> {
    if (graceful) await this.webm?.end();
    else this.webm?.abort();
  }
}
