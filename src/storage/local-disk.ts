import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type BlobInfo, BlobNotFoundError, type BlobStore, type ByteRange } from './types.js';

/** Blobs as files under one root folder; writes go to a temp file renamed into place. */
export class LocalDiskBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    assertSafeKey(key);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Readable | Buffer): Promise<BlobInfo> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID()}.part`;
    try {
      await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const s = await stat(target);
    return { size: s.size, modifiedAt: s.mtime };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const p = this.path(key);
    if (!(await this.stat(key))) throw new BlobNotFoundError(key);
    return createReadStream(p, range ? { start: range.start, end: range.end } : undefined);
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const s = await stat(this.path(key));
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertSafeKey(prefix, true);
    await rm(join(this.root, ...prefix.replace(/\/$/, '').split('/')), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<string[]> {
    assertSafeKey(prefix, true);
    const folder = prefix.replace(/\/$/, '');
    let names: string[];
    try {
      names = await readdir(join(this.root, ...folder.split('/')), { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const keys: string[] = [];
    for (const name of names) {
      const key = `${folder}/${name.split(/[\\/]/).join('/')}`;
      // Temp files of writes in progress are not blobs yet.
      if (!key.endsWith('.part') && (await this.stat(key))) keys.push(key);
    }
    return keys.sort();
  }

  localPath(key: string): string | null {
    return this.path(key);
  }
}
