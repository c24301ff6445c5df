/**
 * A blob as a local file for tools that need a path (ffmpeg): the blob store's own file when it
 * keeps one (local disk), else a temporary copy at `tempPath`, removed after `use` returns.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from './types.js';

export async function withLocalFile<T>(blobs: BlobStore, key: string, tempPath: string, use: (path: string) => Promise<T>): Promise<T> {
  const local = blobs.localPath(key);
  if (local) return use(local);
  try {
    await pipeline(await blobs.get(key), createWriteStream(tempPath));
    return await use(tempPath);
  } finally {
    rmSync(tempPath, { force: true });
  }
}
