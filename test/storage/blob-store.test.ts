/**
 * The blob behaviour suite, run against every BlobStore: local disk and an S3-compatible bucket
 * on a real S3-protocol server (s3rver over HTTP, started here). What a caller sees: a blob
 * appears whole or not at all, ranged reads return exactly the bytes asked for, missing blobs
 * are BlobNotFoundError / null, deletes (one or a prefix) remove them, unsafe keys are refused,
 * and a large stream goes up without being held in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskBlobStore } from '../../src/storage/local-disk.js';
import { BlobNotFoundError, type BlobStore } from '../../src/storage/types.js';
import { startS3Server, type TestS3Server } from '../support/s3-server.js';

async function read(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** `total` bytes of a repeating pattern, made chunk by chunk as the reader pulls. */
function generated(total: number, chunk = 256 * 1024): Readable {
  const pattern = Buffer.alloc(chunk + 251);
  for (let i = 0; i < pattern.length; i++) pattern[i] = i % 251;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunk, total - sent);
      this.push(Buffer.from(pattern.subarray(sent % 251, (sent % 251) + n))); // a fresh copy each time
      sent += n;
    },
  });
}

// A real collection before each memory sample: what is measured is what the upload retains,
// not garbage the collector has not reached yet.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let s3: TestS3Server;
const dir = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
beforeAll(async () => {
  s3 = await startS3Server();
}, 30_000);
afterAll(async () => {
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

const backends: [string, () => BlobStore][] = [
  ['local disk', () => new LocalDiskBlobStore(join(dir, 'blobs'))],
  ['S3 (s3rver)', () => s3.store('suite/')],
];

describe.each(backends)('blob store: %s', (_name, make) => {
  let blobs: BlobStore;
  beforeAll(() => {
    blobs = make();
  });

  it('puts a buffer and a stream, stats and reads them back whole', async () => {
    const info = await blobs.put('tasks/t1/audio.m4a', Buffer.from('hello audio'));
    expect(info.size).toBe(11);
    expect(await read(await blobs.get('tasks/t1/audio.m4a'))).toEqual(Buffer.from('hello audio'));
    await blobs.put('tasks/t1/source.wav', Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    const st = await blobs.stat('tasks/t1/source.wav');
    expect(st?.size).toBe(4);
    expect(st?.modifiedAt).toBeInstanceOf(Date);
    expect((await read(await blobs.get('tasks/t1/source.wav'))).toString()).toBe('abcd');
  });

  it('overwrites a blob in place', async () => {
    await blobs.put('tasks/t2/a.bin', Buffer.from('first version'));
    await blobs.put('tasks/t2/a.bin', Buffer.from('v2'));
    expect((await read(await blobs.get('tasks/t2/a.bin'))).toString()).toBe('v2');
  });

  it('reads inclusive byte ranges (what the audio stream answers 206 with)', async () => {
    const data = Buffer.from('0123456789abcdef');
    await blobs.put('tasks/t3/audio.m4a', data);
    expect((await read(await blobs.get('tasks/t3/audio.m4a', { start: 0, end: 0 }))).toString()).toBe('0');
    expect((await read(await blobs.get('tasks/t3/audio.m4a', { start: 10, end: 15 }))).toString()).toBe('abcdef');
    expect((await read(await blobs.get('tasks/t3/audio.m4a', { start: 3, end: 6 }))).toString()).toBe('3456');
  });

  it('reports missing blobs: stat null, get BlobNotFoundError', async () => {
    expect(await blobs.stat('tasks/none/audio.m4a')).toBeNull();
    await expect(blobs.get('tasks/none/audio.m4a')).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(blobs.get('tasks/none/audio.m4a', { start: 0, end: 3 })).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('deletes one blob, then a whole prefix, and lists what is under a prefix', async () => {
    await blobs.put('tasks/t4/a', Buffer.from('a'));
    await blobs.put('tasks/t4/b', Buffer.from('b'));
    await blobs.put('tasks/t4/sub/c', Buffer.from('c'));
    await blobs.put('tasks/t40/keep', Buffer.from('k'));
    expect(await blobs.list('tasks/t4/')).toEqual(['tasks/t4/a', 'tasks/t4/b', 'tasks/t4/sub/c']);
    await blobs.delete('tasks/t4/a');
    expect(await blobs.stat('tasks/t4/a')).toBeNull();
    await blobs.delete('tasks/t4/a'); // deleting a missing blob is not an error
    await blobs.deletePrefix('tasks/t4/');
    expect(await blobs.list('tasks/t4/')).toEqual([]);
    expect(await blobs.stat('tasks/t4/sub/c')).toBeNull();
    // A sibling whose name starts with the same characters is not under the prefix.
    expect(await blobs.stat('tasks/t40/keep')).not.toBeNull();
    expect(await blobs.list('tasks/nothing/')).toEqual([]);
  });

  it('refuses keys that could escape the store', async () => {
    for (const key of ['../etc/passwd', '/abs/path', 'tasks/../x', '', 'tasks//x'])
      await expect(blobs.put(key, Buffer.from('x'))).rejects.toThrow(/unsafe storage key/);
    await expect(blobs.deletePrefix('../')).rejects.toThrow(/unsafe storage key/);
  });

  it('leaves no blob behind when the stream fails midway', async () => {
    let n = 0;
    const failing = new Readable({
      read() {
        n++;
        if (n > 3) this.destroy(new Error('client went away'));
        else this.push(Buffer.alloc(2 * 1024 * 1024, n));
      },
    });
    await expect(blobs.put('tasks/t5/upload.wav', failing)).rejects.toThrow();
    expect(await blobs.stat('tasks/t5/upload.wav')).toBeNull();
  });

  it('streams a large blob without holding it in memory, and reads a range of it', async () => {
    const size = 96 * 1024 * 1024;
    gc();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 100);
    try {
      const info = await blobs.put('imports/big/source.wav', generated(size));
      expect(info.size).toBe(size);
    } finally {
      clearInterval(sampler);
    }
    // A whole-file buffer would add 96 MB; parts of 5 MB, two in flight, stay below 40 MB (measured).
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    const start = 30 * 1024 * 1024 + 7;
    const got = await read(await blobs.get('imports/big/source.wav', { start, end: start + 99 }));
    expect(got.length).toBe(100);
    for (let i = 0; i < 100; i++) expect(got[i]).toBe((start + i) % 251);
    await blobs.delete('imports/big/source.wav');
  }, 120_000);
});
