/**
 * Object storage for audio and other large files: local disk under PARLEY_DATA_DIR by
 * default, or an S3-compatible bucket (src/storage/s3.ts); configuration picks one (create.ts). Keys are relative
 * slash-separated paths made of safe segments ("tasks/<uuid>/audio.m4a"); anything else is
 * refused, so a key can never escape the storage root.
 */
import type { Readable } from 'node:stream';

export interface BlobInfo {
  size: number;
  modifiedAt: Date;
}

export interface ByteRange {
  /** Inclusive start and end offsets. */
  start: number;
  end: number;
}

export interface BlobStore {
  /** Writes the whole stream; the blob appears atomically when the stream ends. */
  put(key: string, data: Readable | Buffer): Promise<BlobInfo>;
  /** Reads the blob (or an inclusive byte range of it). Throws BlobNotFoundError. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobInfo | null>;
  delete(key: string): Promise<void>;
  /** Deletes every blob under a prefix ("tasks/<uuid>/"). */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys of the blobs under a folder prefix ("recordings/<id>/"), sorted. */
  list(prefix: string): Promise<string[]>;
  /** A local file path for tools that need one (ffmpeg), or null when the store is remote. */
  localPath(key: string): string | null;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws unless `key` is a relative path of safe segments (no "..", no absolute paths). */
export function assertSafeKey(key: string, allowTrailingSlash = false): void {
  const k = allowTrailingSlash && key.endsWith('/') ? key.slice(0, -1) : key;
  const parts = k.split('/');
  if (!k || parts.some((p) => !SEGMENT.test(p) || p === '..' || p.includes('..')))
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
}
