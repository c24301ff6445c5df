/**
 * MP3 encoding for TTS through one long-running ffmpeg (libmp3lame) per synthesizer, so no
 * sentence pays for starting a process (100-250 ms on a busy 2-core machine, far more than
 * eSpeak's 5-15 ms per sentence; with one spawn per sentence, back-to-back sentences waited
 * ~230 ms for their first byte).
 *
 * The process reads raw PCM on stdin for its whole life and writes MP3 frames as it goes
 * (no probing: `-probesize 32 -analyzeduration 0`; `-flush_packets 1`; not `-fflags nobuffer`,
 * which drops the first 882 samples). Each sentence is cut
 * out of that one stream as whole frames, and stays a playable MP3 on its own:
 * - the bit reservoir is off (`-reservoir 0`), so no frame borrows bits from the one before;
 * - each sentence starts on a frame boundary of the input timeline and is followed by at
 *   least `PAD_MIN` samples of silence, more than the encoder delay (1105 samples), so the
 *   frames of a sentence hold all of its audio and only silence from its neighbours;
 * - after a sentence, frames of silence are written and thrown away until the encoder (and
 *   ffmpeg's input and frame buffers) have let out the sentence's last frame: the next
 *   sentence never has to arrive for the current one to finish.
 * The output is parsed into frames by their headers and counted, which is how frames map
 * back to sentences. Sentences are encoded one at a time, in order of request. When the
 * process dies, the waiting sentences fail (EngineError) and the next one starts a new process.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { EngineError } from '../errors.js';

/** Silence after each sentence, at least: more than LAME's encoder delay (576 + 529 samples). */
const PAD_MIN = 1728;
/** Frames of silence written (and discarded) to push a finished sentence out of the pipeline. */
const FLUSH_FRAMES = 6;
/** How long to wait for the rest of a sentence before pushing more silence. */
const FLUSH_RETRY_MS = 20;

interface Job {
  pcm: Buffer;
  signal?: AbortSignal;
  resolve(mp3: Buffer): void;
  reject(err: Error): void;
}

interface Active extends Job {
  first: number;
  end: number;
  frames: Buffer[];
  timer: NodeJS.Timeout | null;
}

type Unrefable = { unref?: () => void; ref?: () => void };

/** Bytes of the MPEG audio frame starting at `b[i]` (0: not a frame header). */
export function mp3FrameLength(b: Buffer, i: number): number {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[i + 1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = (b[i + 1]! >> 1) & 3; // 1: Layer III
  const bitrateIndex = b[i + 2]! >> 4;
  const rateIndex = (b[i + 2]! >> 2) & 3;
  const padding = (b[i + 2]! >> 1) & 1;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const mpeg1 = version === 3;
  const kbps = (
    mpeg1
      ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
      : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
  )[bitrateIndex]!;
  const rate = [44100, 48000, 32000][rateIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4);
  return Math.floor(((mpeg1 ? 144 : 72) * kbps * 1000) / rate) + padding;
}

export class StreamingMp3Encoder {
  /** PCM samples per MP3 frame: 1152 for MPEG-1 rates, 576 below 32 kHz. */
  readonly frameSamples: number;
  private child: ChildProcessWithoutNullStreams | null = null;
  private pending: Buffer = Buffer.alloc(0);
  /** Frames received from the current process, and samples written to it (whole frames). */
  private framesOut = 0;
  private samplesIn = 0;
  private active: Active | null = null;
  private readonly queue: Job[] = [];
  private closed = false;

  constructor(
    private readonly ffmpegPath: string,
    private readonly sampleRate: number,
    private readonly timeoutMs = 60_000,
  ) {
    this.frameSamples = sampleRate >= 32_000 ? 1152 : 576;
    this.child = this.start();
  }

  /** Encodes 16-bit mono PCM at the encoder's sample rate to a self-contained MP3. */
  encode(pcm: Buffer, signal?: AbortSignal): Promise<Buffer> {
    if (this.closed) return Promise.reject(new EngineError('tts_sample_generation_failed', 'The TTS engine is closed.'));
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push({ pcm, signal, resolve, reject });
      this.next();
    });
  }

  close(): void {
    this.closed = true;
    this.fail(new EngineError('tts_sample_generation_failed', 'The TTS engine is closed.'));
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(
      this.ffmpegPath,
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        '-probesize',
        '32',
        '-analyzeduration',
        '0',
        '-f',
        's16le',
        '-ar',
        String(this.sampleRate),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-c:a',
        'libmp3lame',
        '-b:a',
        '48k',
        '-reservoir',
        '0',
        '-write_xing',
        '0',
        '-id3v2_version',
        '0',
        '-flush_packets',
        '1',
        '-f',
        'mp3',
        'pipe:1',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.pending = Buffer.alloc(0);
    this.framesOut = 0;
    this.samplesIn = 0;
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => this.onData(child, c));
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-2000);
    });
    // A process that dies must not crash this one through an EPIPE.
    child.stdin.on('error', () => {});
    const died = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      this.fail(
        new EngineError('tts_sample_generation_failed', `ffmpeg MP3 encoder ended (${why}): ${stderr.trim()}`, { retryable: true }),
      );
    };
    child.on('error', (e) => died(e.message));
    child.on('close', (code, signal) => died(String(signal ?? code)));
    // An idle encoder never keeps a CLI alive; a sentence in progress refs it (next()).
    for (const s of [child, child.stdin, child.stdout, child.stderr] as Unrefable[]) s.unref?.();
    return child;
  }

  private ref(on: boolean): void {
    const c = this.child;
    if (!c) return;
    for (const s of [c, c.stdin, c.stdout, c.stderr] as Unrefable[]) (on ? s.ref : s.unref)?.call(s);
  }

  /** Starts the next queued sentence when none is in progress. */
  private next(): void {
    if (this.active || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    if (job.signal?.aborted) {
      job.reject(new EngineError('tts_sample_generation_failed', 'aborted'));
      this.next();
      return;
    }
    if (!this.child) this.child = this.start();
    const f = this.frameSamples;
    const samples = job.pcm.length >> 1;
    const total = Math.ceil((samples + PAD_MIN) / f) * f;
    const first = this.samplesIn / f;
    const active: Active = { ...job, first, end: first + total / f, frames: [], timer: null };
    this.active = active;
    this.ref(true);
    const timeout = setTimeout(
      () => this.finish(active, new EngineError('tts_sample_generation_failed', 'MP3 encoding timed out')),
      this.timeoutMs,
    );
    const onAbort = () => this.finish(active, new EngineError('tts_sample_generation_failed', 'aborted'));
    job.signal?.addEventListener('abort', onAbort, { once: true });
    const original = { resolve: active.resolve, reject: active.reject };
    const cleanup = () => {
      clearTimeout(timeout);
      job.signal?.removeEventListener('abort', onAbort);
    };
    active.resolve = (mp3) => {
      cleanup();
      original.resolve(mp3);
    };
    active.reject = (err) => {
      cleanup();
      original.reject(err);
    };
    const pcm = job.pcm.length % 2 ? job.pcm.subarray(0, job.pcm.length - 1) : job.pcm;
    this.write(Buffer.concat([pcm, Buffer.alloc((total - samples) * 2)]));
    this.flush(active);
  }

  private write(pcm: Buffer): void {
    this.samplesIn += pcm.length >> 1;
    this.child?.stdin.write(pcm);
  }

  /** Silence (discarded) until the sentence's last frame is out; again while it is not. */
  private flush(active: Active): void {
    this.write(Buffer.alloc(FLUSH_FRAMES * this.frameSamples * 2));
    active.timer = setTimeout(() => {
      if (this.active === active) this.flush(active);
    }, FLUSH_RETRY_MS);
  }

  private onData(child: ChildProcessWithoutNullStreams, chunk: Buffer): void {
    if (this.child !== child) return;
    let b = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let i = 0;
    for (;;) {
      const len = mp3FrameLength(b, i);
      if (len === 0) {
        if (i + 4 <= b.length && b.length - i > 0) {
          // Not at a frame header: skip to the next sync word (should not happen without tags).
          const sync = b.indexOf(0xff, i + 1);
          if (sync === -1) {
            i = b.length;
            break;
          }
          i = sync;
          continue;
        }
        break;
      }
      if (i + len > b.length) break;
      const frame = b.subarray(i, i + len);
      const index = this.framesOut++;
      const a = this.active;
      if (a && index >= a.first && index < a.end) a.frames.push(frame);
      i += len;
      if (a && index === a.end - 1) this.finish(a, null);
    }
    b = b.subarray(i);
    this.pending = Buffer.from(b);
  }

  private finish(a: Active, err: Error | null): void {
    if (this.active !== a) return;
    this.active = null;
    if (a.timer) clearTimeout(a.timer);
    this.ref(false);
    if (err) {
      // The stream's frame count no longer matches what was asked: start afresh.
      const c = this.child;
      this.child = null;
      c?.kill('SIGKILL');
      a.reject(err);
    } else a.resolve(Buffer.concat(a.frames));
    this.next();
  }

  private fail(err: Error): void {
    const a = this.active;
    if (a) {
      this.active = null;
      if (a.timer) clearTimeout(a.timer);
      a.reject(err);
    }
    for (const j of this.queue.splice(0)) j.reject(err);
  }
}
