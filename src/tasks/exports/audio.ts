/**
 * Audio export: the stored M4A as is, or MP3 made from it on the fly by the audio tools
 * (streamed at the client's pace, so the download starts at once; nothing is cached). A remote
 * blob store is first copied to a temporary file, because an M4A's index may sit at its end and
 * the encoder then needs to seek.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AudioTools } from '../../engines/audio/port.js';
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
export async function mp3Stream(
  blobs: BlobStore,
  key: string,
  audio: Pick<AudioTools, 'mp3Stream'>,
  onError: (err: Error) => void,
): Promise<Readable> {
  let input = blobs.localPath(key);
  let tempDir: string | null = null;
  if (!input) {
    tempDir = await mkdtemp(join(tmpdir(), 'parley-export-'));
    input = join(tempDir, 'audio.m4a');
    await pipeline(await blobs.get(key), createWriteStream(input));
  }
  const temp = tempDir;
  return audio.mp3Stream(input, {
    bitrate: MP3_BITRATE,
    onError,
    onClose: () => void (temp ? rm(temp, { recursive: true, force: true }) : undefined),
  });
}
