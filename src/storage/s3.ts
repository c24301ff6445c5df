/**
 * Blobs as objects in an S3-compatible bucket (AWS SDK v3). Streams go up as multipart
 * uploads (lib-storage `Upload`): at most `queueSize` parts are held in memory, so a 500 MB
 * import never sits whole in memory, and the object appears only when the upload completes
 * (an aborted upload leaves nothing behind). Ranged reads use HTTP Range on GetObject, so
 * the audio stream's 206 answers read only the bytes asked for. There is no local path:
 * ffmpeg gets a temporary copy (src/storage/local-file.ts).
 */
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertSafeKey, type BlobInfo, BlobNotFoundError, type BlobStore, type ByteRange } from './types.js';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server; unset: AWS. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Prepended to every key ("parley/"). */
  prefix?: string;
  /** Unset: the SDK's default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  partSizeBytes?: number;
}

const MIN_PART = 5 * 1024 * 1024; // S3's smallest part (all but the last)

export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.partSize = Math.max(MIN_PART, options.partSizeBytes ?? 8 * 1024 * 1024);
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      // Checksums only where S3 requires them: newer default trailers (CRC32 over
      // aws-chunked bodies) are not understood by every S3-compatible server.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    assertSafeKey(key);
    return this.prefix + key;
  }

  /** Fails start-up with a clear message when the bucket is missing or unreachable. */
  async ready(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      throw new Error(`S3 bucket "${this.bucket}" is not reachable: ${describe(err)}`, { cause: err });
    }
  }

  async put(key: string, data: Readable | Buffer): Promise<BlobInfo> {
    const Key = this.objectKey(key);
    if (Buffer.isBuffer(data) && data.length <= this.partSize) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: data, ContentLength: data.length }));
    } else {
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key, Body: data },
        partSize: this.partSize,
        queueSize: 2,
        leavePartsOnError: false, // a failed upload is aborted: no orphaned parts, no partial object
      });
      await upload.done();
    }
    const info = await this.stat(key);
    if (!info) throw new Error(`S3 upload of ${key} completed but the object is missing`);
    return info;
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body =
        out.Body instanceof Readable
          ? out.Body
          : // Not Node's stream (never on Node, but typed as a union): wrap the web stream.
            Readable.fromWeb((out.Body as { transformToWebStream(): ReadableStream }).transformToWebStream() as never);
      if (!range) return body;
      // A server may answer a range it does not honour (or only partly: some S3-compatible
      // servers read "bytes=0-0" as "bytes=0-") with more bytes; cut to exactly what was asked.
      const from = Number(/^bytes (\d+)-/.exec(out.ContentRange ?? '')?.[1] ?? 0);
      const wanted = range.end - range.start + 1;
      if (from === range.start && out.ContentLength === wanted) return body;
      return slice(body, range.start - from, wanted);
    } catch (err) {
      if (notFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertSafeKey(prefix, true);
    const Prefix = this.prefix + (prefix.endsWith('/') ? prefix : `${prefix}/`);
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken: token }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length) await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Keys under a prefix, in key order (segmented live recordings list their segments). */
  async list(prefix: string): Promise<string[]> {
    assertSafeKey(prefix, true);
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  localPath(): string | null {
    return null;
  }

  close(): void {
    this.client.destroy();
  }
}

/** `length` bytes of `body` after skipping `skip` bytes; the rest of the response is dropped. */
function slice(body: Readable, skip: number, length: number): Readable {
  return Readable.from(
    (async function* () {
      let pos = 0;
      let left = length;
      try {
        for await (const chunk of body) {
          const buf = chunk as Buffer;
          const a = Math.max(0, skip - pos);
          pos += buf.length;
          if (a >= buf.length) continue;
          const part = buf.subarray(a, a + left);
          left -= part.length;
          yield part;
          if (left <= 0) break;
        }
      } finally {
        body.destroy();
      }
    })(),
  );
}

function notFound(err: unknown): boolean {
  if (err instanceof S3ServiceException) return err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound';
  return false;
}

function describe(err: unknown): string {
  if (err instanceof S3ServiceException) return `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'})`;
  return err instanceof Error ? err.message : String(err);
}
