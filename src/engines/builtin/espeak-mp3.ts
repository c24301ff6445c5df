/**
 * MP3 encoding for TTS with ffmpeg started ahead of need. Starting ffmpeg costs 100-250 ms
 * on a busy 2-core machine, far more than eSpeak's 5-15 ms per sentence, so one encoder is
 * always waiting on stdin (raw PCM needs no probing): a request hands its PCM to the waiting
 * process and a replacement starts at once. The waiting process is unref'd so it never keeps
 * a CLI alive; `close()` kills it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { EngineError } from '../errors.js';

interface Pending {
  child: ChildProcessWithoutNullStreams;
  done: Promise<Buffer>;
}

type Unrefable = { unref?: () => void; ref?: () => void };

export class WarmMp3Encoder {
  private spare: Pending | null = null;
  private closed = false;

  constructor(
    private readonly ffmpegPath: string,
    private readonly sampleRate: number,
    private readonly timeoutMs = 60_000,
  ) {
    this.spare = this.start();
  }

  private start(): Pending {
    const child = spawn(
      this.ffmpegPath,
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
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
        '-f',
        'mp3',
        'pipe:1',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    // A spare that dies while waiting must not crash the process through an EPIPE.
    child.stdin.on('error', () => {});
    const done = new Promise<Buffer>((resolve, reject) => {
      child.on('error', (e) =>
        reject(new EngineError('tts_sample_generation_failed', `ffmpeg could not start: ${e.message}`, { cause: e })),
      );
      child.on('close', (code, signal) => {
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new EngineError('tts_sample_generation_failed', `ffmpeg MP3 encoding failed (${signal ?? code}): ${err.trim()}`));
      });
    });
    done.catch(() => {}); // observed by encode(); an unused spare's failure is not an error
    for (const s of [child, child.stdin, child.stdout, child.stderr] as Unrefable[]) s.unref?.();
    return { child, done };
  }

  /** Encodes 16-bit mono PCM at the encoder's sample rate to MP3 bytes. */
  async encode(pcm: Buffer, signal?: AbortSignal): Promise<Buffer> {
    if (this.closed) throw new EngineError('tts_sample_generation_failed', 'The TTS engine is closed.');
    let job = this.spare;
    if (!job || job.child.exitCode !== null || job.child.signalCode !== null) job = this.start();
    this.spare = this.start();
    for (const s of [job.child, job.child.stdin, job.child.stdout, job.child.stderr] as Unrefable[]) s.ref?.();
    const kill = () => job.child.kill('SIGKILL');
    const timer = setTimeout(kill, this.timeoutMs);
    signal?.addEventListener('abort', kill, { once: true });
    try {
      job.child.stdin.end(pcm);
      return await job.done;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
    }
  }

  close(): void {
    this.closed = true;
    this.spare?.child.kill('SIGKILL');
    this.spare = null;
  }
}
