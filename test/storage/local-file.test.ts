/**
 * withLocalFile: the local disk store's own file is used in place; a store without local files
 * (as an S3-compatible one will be) gets a temporary copy that is removed afterwards, also when
 * the work fails.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDiskBlobStore } from '../../src/storage/local-disk.js';
import { withLocalFile } from '../../src/storage/local-file.js';
import type { BlobStore } from '../../src/storage/types.js';

describe('withLocalFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-localfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const disk = new LocalDiskBlobStore(join(dir, 'blobs'));
  // The same store seen as a remote one: no local paths, reads only through get().
  const remote: BlobStore = Object.assign(Object.create(disk) as BlobStore, { localPath: () => null });

  it('uses the stored file in place on local disk', async () => {
    await disk.put('tasks/a/source.wav', Buffer.from('bytes'));
    const seen = await withLocalFile(disk, 'tasks/a/source.wav', join(dir, 'copy'), async (p) => p);
    expect(seen).toBe(disk.localPath('tasks/a/source.wav'));
    expect(existsSync(join(dir, 'copy'))).toBe(false);
  });

  it('copies from a store without local files and removes the copy, also after a failure', async () => {
    await disk.put('tasks/b/source.wav', Buffer.from('remote bytes'));
    const copy = join(dir, 'copy-b');
    const read = await withLocalFile(remote, 'tasks/b/source.wav', copy, async (p) => readFileSync(p, 'utf8'));
    expect(read).toBe('remote bytes');
    expect(existsSync(copy)).toBe(false);
    await expect(
      withLocalFile(remote, 'tasks/b/source.wav', copy, async () => {
        throw new Error('ffmpeg failed');
      }),
    ).rejects.toThrow('ffmpeg failed');
    expect(existsSync(copy)).toBe(false);
  });
});
