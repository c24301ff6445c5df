/**
 * ffmpeg as a child process: decode anything it reads to 16 kHz mono PCM, encode MP3 and
 * M4A, measure duration. Every run has a time limit and is killed on abort, so a corrupt or
 * endless input never hangs a caller or leaks a process.
 */
import { spawn } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { EngineError } from '../errors.js';
import type { PcmAudio } from '../types.js';
import { OutputLimitError } from './port.js';

export interface FfmpegOptions {
  ffmpegPath: string;
  /** Hard limit for one run (default 10 minutes: a 10-hour file decodes in well under that). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface RunOptions extends FfmpegOptions {
  /**
   * Receives stdout as it comes instead of collecting it (long inputs). Returning `'stop'`
   * ends the run at once as a success (the caller has seen enough: a limit was passed).
   */
  sink?: (chunk: Buffer) => undefined | 'stop';
}

export const SAMPLE_RATE = 16_000;

interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs ffmpeg with `args`, feeding `input` (a path is given in args instead). */
export function runFfmpeg(args: string[], input: Buffer | Readable | null, options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.ffmpegPath, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    const finish = (e: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (e) {
        child.kill('SIGKILL');
        reject(e);
      } else resolve({ stdout: Buffer.concat(out), stderr: err });
    };
    const timer = setTimeout(
      () => finish(new EngineError('audio_process_failed', 'ffmpeg took too long', { retryable: false })),
      options.timeoutMs ?? 600_000,
    );
    const onAbort = () => finish(new EngineError('audio_process_failed', 'aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => {
      if (settled) return;
      if (!options.sink) out.push(d);
      else if (options.sink(d) === 'stop') {
        child.kill('SIGKILL');
        finish(null);
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString();
    });
    child.on('error', (e) => finish(new EngineError('audio_process_failed', `ffmpeg could not run: ${e.message}`, { cause: e })));
    child.on('close', (code) => {
      if (code === 0) finish(null);
      else finish(new EngineError('audio_decode_failed', `ffmpeg failed: ${err.trim().split('\n').slice(-2).join(' ') || `exit ${code}`}`));
    });
    child.stdin.on('error', () => {}); // ffmpeg may close stdin early on bad input
    if (input === null) child.stdin.end();
    else if (Buffer.isBuffer(input)) child.stdin.end(input);
    else input.pipe(child.stdin);
  });
}

function toFloat(pcm: Buffer): Float32Array {
  const n = pcm.length >> 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = pcm.readInt16LE(i * 2) / 32768;
  return out;
}

/**
 * Decodes a file (path) or bytes to 16 kHz mono float PCM. `channel` picks one channel of a
 * multi-channel input instead of the mix.
 */
export async function decodeToPcm(input: string | Buffer, options: FfmpegOptions & { channel?: number }): Promise<PcmAudio> {
  const source = typeof input === 'string' ? ['-i', input] : ['-i', 'pipe:0'];
  const mapping = options.channel === undefined ? ['-ac', '1'] : ['-af', `pan=mono|c0=c${options.channel}`];
  const { stdout } = await runFfmpeg(
    [...source, '-vn', ...mapping, '-ar', String(SAMPLE_RATE), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'],
    typeof input === 'string' ? null : input,
    options,
  );
  if (stdout.length === 0) throw new EngineError('audio_invalid_format', 'the input has no decodable audio');
  return { sampleRate: SAMPLE_RATE, samples: toFloat(stdout) };
}

/** What a file's first audio stream says of itself (its header): codec, sample rate, channels. */
export interface StreamInfo {
  codec: string;
  sampleRate: number;
  channels: number;
}

/** The first audio stream's header, from ffmpeg's stream description (null: no audio stream). */
export async function streamInfo(path: string, options: FfmpegOptions): Promise<StreamInfo | null> {
  // The stream description is printed at the info level (the runner's default is error).
  const r = await runFfmpeg(['-loglevel', 'info', '-i', path, '-f', 'null', '-t', '0', '-'], null, options).catch((e: unknown) => {
    throw e instanceof EngineError ? e : new EngineError('audio_decode_failed', String(e));
  });
  return parseStreamInfo(r.stderr);
}

/** "Stream #0:0: Audio: pcm_s16le ([1][0][0][0] / 0x0001), 1 Hz, 1 channels, s16, 0 kb/s" and the like. */
export function parseStreamInfo(stderr: string): StreamInfo | null {
  const m = /Audio: ([^\s,]+)[^\n]*?, (\d+) Hz, ([^,\n]+)/.exec(stderr);
  if (!m) return null;
  const layout = m[3]!.trim();
  const named: Record<string, number> = { mono: 1, stereo: 2, '2.1': 3, quad: 4, '4.0': 4, '5.0': 5, '5.1': 6, '6.1': 7, '7.1': 8 };
  const count = /^(\d+) channels/.exec(layout)?.[1];
  const channels = count ? Number(count) : (named[layout.replace(/\(.*\)$/, '')] ?? 1);
  return { codec: m[1]!, sampleRate: Number(m[2]), channels };
}

/** Number of audio channels of a file, from ffmpeg's stream description. */
export async function channelCount(path: string, options: FfmpegOptions): Promise<number> {
  return (await streamInfo(path, options))?.channels ?? 1;
}

/**
 * Duration in ms, measured by decoding and counting samples (exact for VBR files; constant
 * memory), never read from a header. With `maxMs` the count stops just past it (`over`), so
 * a file that decodes to days of audio costs no more than the limit.
 */
export async function measureDurationMs(
  path: string,
  options: FfmpegOptions & { maxMs?: number },
): Promise<{ durationMs: number; over: boolean }> {
  const stopAt = options.maxMs === undefined ? Number.POSITIVE_INFINITY : (options.maxMs + 1000) * PCM_BYTES_PER_MS;
  let bytes = 0;
  await runFfmpeg(['-i', path, '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1'], null, {
    ...options,
    sink: (d) => {
      bytes += d.length;
      return bytes > stopAt ? 'stop' : undefined;
    },
  });
  if (bytes === 0) throw new EngineError('audio_invalid_format', 'the input has no decodable audio');
  return { durationMs: Math.round(bytes / PCM_BYTES_PER_MS), over: bytes > stopAt };
}

/** Bytes of 16 kHz mono s16le PCM per millisecond. */
export const PCM_BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;

function toS16(samples: Float32Array): Buffer {
  const buf = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32767))), i * 2);
  return buf;
}

export type EncodeFormat = 'mp3' | 'm4a';

const ENCODERS: Record<EncodeFormat, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  // "+faststart" is not possible on a pipe; M4A goes to a file path (see encodeFile).
  m4a: ['-c:a', 'aac', '-b:a', '64k', '-f', 'ipod'],
};

/** Encodes mono PCM to MP3 bytes (streamable to a pipe). */
export async function encodePcmToMp3(audio: PcmAudio, options: FfmpegOptions): Promise<Buffer> {
  const { stdout } = await runFfmpeg(
    ['-f', 's16le', '-ar', String(audio.sampleRate), '-ac', '1', '-i', 'pipe:0', ...ENCODERS.mp3, 'pipe:1'],
    toS16(audio.samples),
    options,
  );
  return stdout;
}

/** Encodes PCM or transcodes a file into `outPath` (M4A gets its index at the front for streaming). */
export async function encodeFile(
  input: { pcm: PcmAudio } | { path: string },
  outPath: string,
  format: EncodeFormat,
  options: FfmpegOptions & { maxBytes?: number },
): Promise<void> {
  const src = 'path' in input ? ['-i', input.path] : ['-f', 's16le', '-ar', String(input.pcm.sampleRate), '-ac', '1', '-i', 'pipe:0'];
  const extra = format === 'm4a' ? ['-movflags', '+faststart'] : [];
  // -fs: ffmpeg stops writing at the limit; an output that reached it is not whole.
  const limit = options.maxBytes === undefined ? [] : ['-fs', String(Math.max(0, Math.floor(options.maxBytes)))];
  try {
    await runFfmpeg(
      ['-y', ...src, '-vn', ...ENCODERS[format], ...extra, ...limit, outPath],
      'pcm' in input ? toS16(input.pcm.samples) : null,
      options,
    );
  } catch (err) {
    if (options.maxBytes === undefined || sizeOf(outPath) < options.maxBytes) throw err;
  }
  if (options.maxBytes !== undefined && sizeOf(outPath) >= options.maxBytes) {
    const bytes = sizeOf(outPath);
    rmSync(outPath, { force: true });
    throw new OutputLimitError(bytes, options.maxBytes);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
