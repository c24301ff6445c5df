/**
 * Audio export: the stored M4A as is, or MP3 made from it by ffmpeg on the fly (streamed, so
 * the download starts at once; nothing is cached). A remote blob store is first copied to a
 * temporary file, because an M4A's index may sit at its end and ffmpeg then needs to seek.
 * Its own small ffmpeg call rather than the engine layer's runner: a download must follow the
 * client's pace (pipe back-pressure), where the runner collects or pushes output at once.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../../storage/types.js';

export const AUDIO_FORMATS = ['m4a', 'mp3'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const AUDIO_TYPES: Record<AudioFormat, string> = { m4a: 'audio/mp4', mp3: 'audio/mpeg' };

/** MP3 bitrate of exports: speech at 128 kbit/s stays clear on any player. */
const MP3_BITRATE = '128k';

/**
 * Streams `key` as MP3. The returned stream errors (and ends early) when ffmpeg fails, so a
 * broken download is never mistaken for a complete one.
 */
export async function mp3Stream(blobs: BlobStore, key: string, ffmpegPath: string, onError: (err: Error) => void): Promise<Readable> {
  let input = blobs.localPath(key);
  let tempDir: string | null = null;
  if (!input) {
    tempDir = await mkdtemp(join(tmpdir(), 'parley-export-'));
    input = join(tempDir, 'audio.m4a');
    await pipeline(await blobs.get(key), createWriteStream(input));
  }
  const ff = spawn(
    ffmpegPath,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-i',
      input,
      '-vn',
      '-c:a',
      'libmp3lame',
      '-b:a',
      MP3_BITRATE,
      '-f',
      'mp3',
      'pipe:1',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out = new PassThrough();
  let stderr = '';
  ff.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  ff.stdout.pipe(out, { end: false });
  const cleanup = () => (tempDir ? rm(tempDir, { recursive: true, force: true }) : Promise.resolve());
  ff.on('error', (err) => {
    onError(err);
    out.destroy(err);
    void cleanup();
  });
  ff.on('close', (code) => {
    void cleanup();
    if (code === 0) {
      ff.stdout.once('end', () => out.end());
      if (ff.stdout.readableEnded) out.end();
    } else {
      const err = new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`);
      onError(err);
      out.destroy(err);
    }
  });
  // The client went away: stop encoding.
  out.on('close', () => {
    if (ff.exitCode === null) ff.kill('SIGKILL');
  });
  return out;
}
