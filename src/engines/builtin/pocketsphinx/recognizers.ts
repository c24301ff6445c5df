/**
 * English speech recognition with PocketSphinx: files (VAD segments decoded one by one,
 * word times on the file's timeline) and streams (interim hypotheses every 200 ms of audio,
 * a final at each VAD endpoint).
 */
import { EngineError } from '../../errors.js';
import type {
  FileRecognizer,
  FileSttOptions,
  FileTranscript,
  FileTranscriptSegment,
  PcmAudio,
  RecognizerStream,
  SpeechSegment,
  StreamingRecognizer,
  StreamingSttOptions,
  VoiceActivityDetector,
  Word,
} from '../../types.js';
import type { DecoderPool, PsDecoder, PsWord } from './native.js';

const RATE = 16_000;
const FRAME_MS = 10;
/** Interim hypotheses at least this often (ms of audio). */
const INTERIM_EVERY_MS = 200;
/**
 * Audio is decoded in pieces of at most this many samples (100 ms) and the hypothesis is
 * read after each: a client sending larger chunks still gets interims every 200 ms of audio.
 */
const PIECE_SAMPLES = 1600;
/**
 * The VAD reports an end of speech once this much silence followed it (silero-vad.ts,
 * minSilenceSeconds). Within one large chunk, the utterance is closed this long after the
 * reported end, where a stream of small chunks would have closed it.
 */
const ENDPOINT_SILENCE_MS = 400;
/** A final is forced when an utterance runs this long without an endpoint. */
const MAX_UTTERANCE_MS = 20_000;
/** Audio kept on each side of a VAD segment for files (word onsets are soft). */
const SEGMENT_PAD_MS = 300;

const CAPABILITIES = { languages: ['en'], streaming: true, interimResults: true, wordTimes: true, diarization: false };

export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32767)));
  return out;
}

export function toFloat32(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}

function wordsAt(words: PsWord[], offsetMs: number): Word[] {
  return words.map((w) => ({ text: w.word, startMs: offsetMs + w.startFrame * FRAME_MS, endMs: offsetMs + (w.endFrame + 1) * FRAME_MS }));
}

/** Merges segments closer than `gapMs` and pads them, within [0, durationMs]. */
export function prepareSegments(segments: SpeechSegment[], durationMs: number, gapMs = 300): SpeechSegment[] {
  const merged: SpeechSegment[] = [];
  for (const s of segments) {
    const last = merged[merged.length - 1];
    if (last && s.startMs - last.endMs < gapMs && s.endMs - last.startMs <= MAX_UTTERANCE_MS) last.endMs = s.endMs;
    else merged.push({ ...s });
  }
  return merged.map((s) => ({ startMs: Math.max(0, s.startMs - SEGMENT_PAD_MS), endMs: Math.min(durationMs, s.endMs + SEGMENT_PAD_MS) }));
}

export class PocketSphinxFileRecognizer implements FileRecognizer {
  readonly id = 'builtin/pocketsphinx';
  readonly kind = 'file-stt' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly pool: DecoderPool,
    private readonly vad: VoiceActivityDetector | undefined,
  ) {}

  async transcribe(audio: PcmAudio, options: FileSttOptions): Promise<FileTranscript> {
    if (audio.sampleRate !== RATE) throw new EngineError('audio_invalid_format', 'PocketSphinx needs 16 kHz audio', { engineId: this.id });
    const durationMs = Math.round((audio.samples.length / RATE) * 1000);
    const found = this.vad ? await this.vad.segments(audio) : [{ startMs: 0, endMs: durationMs }];
    const segments = prepareSegments(found, durationMs);
    const decoder = await this.pool.acquire().catch((err: unknown) => {
      throw new EngineError('stt_init_failed', `PocketSphinx could not start: ${String(err)}`, { engineId: this.id, cause: err });
    });
    const out: FileTranscriptSegment[] = [];
    try {
      for (const [i, seg] of segments.entries()) {
        if (options.signal?.aborted) throw new EngineError('stt_start_failed', 'aborted', { engineId: this.id });
        const pcm = toInt16(audio.samples.subarray(Math.floor((seg.startMs * RATE) / 1000), Math.floor((seg.endMs * RATE) / 1000)));
        decoder.startUtterance();
        await decoder.process(pcm, true);
        await decoder.endUtterance();
        const words = wordsAt(decoder.words(pcm.length), seg.startMs);
        if (words.length)
          out.push({ text: words.map((w) => w.text).join(' '), startMs: words[0]!.startMs, endMs: words[words.length - 1]!.endMs, words });
        options.onProgress?.((i + 1) / segments.length);
      }
    } finally {
      this.pool.release(decoder);
    }
    return { text: out.map((s) => s.text).join(' '), language: options.language, segments: out, durationMs };
  }
}

export class PocketSphinxStreamingRecognizer implements StreamingRecognizer {
  readonly id = 'builtin/pocketsphinx';
  readonly kind = 'streaming-stt' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly pool: DecoderPool,
    private readonly vad: VoiceActivityDetector,
    private readonly acquireTimeoutMs = 10_000,
  ) {}

  async open(options: StreamingSttOptions): Promise<RecognizerStream> {
    const giveUp = AbortSignal.timeout(this.acquireTimeoutMs);
    const decoder = await this.pool.acquire('stream', giveUp).catch((err: unknown) => {
      if (giveUp.aborted)
        throw new EngineError('stt_init_failed', 'all PocketSphinx decoders are busy', { retryable: true, engineId: this.id });
      throw err;
    });
    return new PocketSphinxStream(decoder, this.pool, this.vad, options);
  }
}

/**
 * One live stream: the decoder is always inside an utterance; VAD endpoints close it. An
 * interim goes out as soon as the hypothesis changes (at most once per 100 ms piece), and
 * at least every 200 ms of audio while there is text: the first words of an utterance are
 * not held back until the next 200 ms mark.
 */
class PocketSphinxStream implements RecognizerStream {
  private queue: Promise<void> = Promise.resolve();
  private readonly vadStream;
  private fedMs = 0;
  private utteranceStartMs = 0;
  private sinceInterimMs = 0;
  private lastInterim = '';
  private done = false;
  private failed = false;

  constructor(
    private readonly decoder: PsDecoder,
    private readonly pool: DecoderPool,
    vad: VoiceActivityDetector,
    private readonly options: StreamingSttOptions,
  ) {
    this.vadStream = vad.openStream();
    decoder.startUtterance();
  }

  write(pcm: Int16Array): void {
    if (this.done || this.failed || pcm.length === 0) return;
    const chunk = pcm.slice(); // the caller may reuse its buffer
    const endpoints = this.vadStream
      .write(toFloat32(chunk))
      .filter((e) => e.type === 'speech_end')
      .map((e) => e.atMs + ENDPOINT_SILENCE_MS);
    this.enqueue(async () => {
      for (let at = 0; at < chunk.length; at += PIECE_SAMPLES) {
        const piece = chunk.subarray(at, at + PIECE_SAMPLES);
        await this.decoder.process(piece);
        const ms = (piece.length / RATE) * 1000;
        this.fedMs += ms;
        this.sinceInterimMs += ms;
        const last = at + PIECE_SAMPLES >= chunk.length;
        // Every endpoint the VAD found in this chunk closes an utterance, at the latest when the chunk ends.
        if (endpoints.length > 0 && (this.fedMs >= endpoints[0]! || last)) {
          endpoints.shift();
          await this.finalize(true);
        } else if (this.fedMs - this.utteranceStartMs >= MAX_UTTERANCE_MS) await this.finalize(true);
        else if (this.options.interimResults) this.interim();
      }
    });
  }

  private interim(): void {
    const text = this.decoder.hypothesis();
    if (!text || (text === this.lastInterim && this.sinceInterimMs < INTERIM_EVERY_MS)) return;
    this.lastInterim = text;
    this.sinceInterimMs = 0;
    this.options.onResult({ text, isFinal: false, startMs: Math.round(this.utteranceStartMs), endMs: Math.round(this.fedMs) });
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((err: unknown) => {
      if (this.failed) return;
      this.failed = true;
      this.options.onError(
        new EngineError('stt_connection_lost', `PocketSphinx failed: ${String(err)}`, { cause: err, engineId: 'builtin/pocketsphinx' }),
      );
    });
  }

  /** Ends the utterance, delivers its final (when it has words), and opens the next one. */
  private async finalize(reopen: boolean): Promise<void> {
    await this.decoder.endUtterance();
    const words = wordsAt(
      this.decoder.words(Math.round(((this.fedMs - this.utteranceStartMs) * RATE) / 1000)),
      Math.round(this.utteranceStartMs),
    );
    if (words.length) {
      this.options.onResult({
        text: words.map((w) => w.text).join(' '),
        isFinal: true,
        startMs: words[0]!.startMs,
        endMs: words[words.length - 1]!.endMs,
        words,
      });
    }
    this.utteranceStartMs = this.fedMs;
    this.sinceInterimMs = 0;
    this.lastInterim = '';
    if (reopen) this.decoder.startUtterance();
  }

  async end(): Promise<void> {
    if (this.done) return this.queue;
    this.done = true;
    this.vadStream.flush();
    this.enqueue(() => this.finalize(false));
    await this.queue;
    this.pool.release(this.decoder);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    void this.queue.then(async () => {
      await this.decoder.endUtterance().catch(() => {});
      this.pool.release(this.decoder);
    });
  }
}
