/**
 * Node-only helpers around the browser-safe client: the `ws` package as the WebSocket (Node 20
 * has no global one), files as Blobs for imports, audio files or streams as 16 kHz mono PCM
 * frames through ffmpeg, and a live session fed from a file at microphone pace.
 *
 *   import { nodeClient, liveFromFile } from './src/client/node.js';
 *   const parley = nodeClient({ baseUrl: 'http://localhost:8080', apiKey });
 *   const { session, taskId } = await liveFromFile(parley, 'talk.flac', { transcription_languages: ['en-US'] });
 */
import { spawn } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import WebSocket from 'ws';
import { type ClientOptions, ParleyClient } from './client.js';
import type { ParleyError } from './errors.js';
import type { ImportInput } from './inputs.js';
import type { LiveEvent, LiveSession, StartOptions, WebSocketConstructor } from './live.js';

export * from './index.js';

/** 16 kHz mono s16le: 32000 bytes a second; frames of 100 ms. */
export const PCM_BYTES_PER_SECOND = 32_000;
export const PCM_FRAME_BYTES = 3_200;

/** A client whose live sessions use the `ws` package. */
export function nodeClient(options: Omit<ClientOptions, 'WebSocket'>): ParleyClient {
  return new ParleyClient({ ...options, WebSocket: WebSocket as unknown as WebSocketConstructor });
}

/**
 * Throws an error naming `path` when it cannot be read (openAsBlob's own error, "Unable to
 * open file as blob", and ffmpeg's exit status name no file).
 */
export async function assertReadable(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code}`, {
      cause: err,
    });
  }
}

/** A file as the `file` and `filename` of an import. */
export async function importFile(path: string): Promise<Pick<ImportInput, 'file' | 'filename'>> {
  await assertReadable(path);
  return { file: await openAsBlob(path), filename: basename(path) };
}

/** Cuts a byte stream into frames of `frameBytes` (the last one may be shorter). */
export async function* frames(source: AsyncIterable<Uint8Array>, frameBytes = PCM_FRAME_BYTES): AsyncGenerator<Uint8Array> {
  let pending = Buffer.alloc(0);
  for await (const chunk of source) {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= frameBytes) {
      yield pending.subarray(0, frameBytes);
      pending = pending.subarray(frameBytes);
    }
  }
  if (pending.length) yield pending;
}

/**
 * Any audio ffmpeg reads (a path, or a stream of a file's bytes) as 100 ms frames of 16 kHz
 * mono PCM. Needs `ffmpeg` on PATH. The process ends with the iteration.
 */
export async function* pcmFrames(input: string | Readable): AsyncGenerator<Uint8Array> {
  const ffmpeg = spawn(
    'ffmpeg',
    ['-loglevel', 'error', '-i', typeof input === 'string' ? input : 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '16000', '-'],
    {
      stdio: [typeof input === 'string' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  ffmpeg.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    ffmpeg.once('error', reject);
    ffmpeg.once('close', resolve);
  });
  if (typeof input !== 'string') input.pipe(ffmpeg.stdin!);
  try {
    yield* frames(ffmpeg.stdout!);
    const code = await exited;
    if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`);
  } finally {
    if (ffmpeg.exitCode === null) ffmpeg.kill();
  }
}

export interface LiveFromFileOptions {
  /** 1 = real time (a live microphone); tests send faster. */
  speed?: number;
  /** Every event, from session_started on. */
  onEvent?: (e: LiveEvent) => void;
  /** Error messages (sentence-level ones carry sid). */
  onError?: (err: ParleyError) => void;
  /** Leave the session running after the audio (default: stop and wait for `ended`). */
  keepOpen?: boolean;
}

/**
 * A live session fed from an audio file or stream (converted to PCM by ffmpeg) at microphone
 * pace: start (audio_format pcm), the audio, then stop until the recording has ended.
 */
export async function liveFromFile(
  client: ParleyClient,
  input: string | Readable,
  start: Omit<StartOptions, 'audio_format'>,
  options: LiveFromFileOptions = {},
): Promise<{ session: LiveSession; taskId: string | undefined }> {
  // Before a session is opened (and billed): a missing file would otherwise end it at once.
  if (typeof input === 'string') await assertReadable(input);
  const session = await client.live.connect();
  if (options.onEvent) session.onAny(options.onEvent);
  if (options.onError) session.onError(options.onError);
  try {
    await session.start({ type: 'transcribe', ...start, audio_format: 'pcm' });
  } catch (err) {
    session.close();
    throw err;
  }
  await session.streamAudio(pcmFrames(input), { bytesPerSecond: PCM_BYTES_PER_SECOND, speed: options.speed ?? 1 });
  if (options.keepOpen) return { session, taskId: session.taskId };
  const { taskId } = await session.stop();
  session.close();
  return { session, taskId };
}
