/** The blob store configuration selects: an S3-compatible bucket when PARLEY_S3_BUCKET is set, else local disk. */
import { join } from 'node:path';
import { LocalDiskBlobStore } from './local-disk.js';
import type { StorageConfig } from './settings.js';
import type { BlobStore } from './types.js';

export async function openBlobStore(config: StorageConfig): Promise<BlobStore & { close?: () => void }> {
  const s = config.storage;
  if (!s.s3Bucket) return new LocalDiskBlobStore(join(config.platform.dataDir, 'blobs'));
  // Loaded only when configured: the AWS SDK is large, and every CLI start would pay for it.
  const { S3BlobStore } = await import('./s3.js');
  const store = new S3BlobStore({
    bucket: s.s3Bucket,
    region: s.s3Region,
    endpoint: s.s3Endpoint,
    forcePathStyle: s.s3ForcePathStyle,
    prefix: s.s3Prefix,
    credentials:
      s.s3AccessKeyId && s.s3SecretAccessKey ? { accessKeyId: s.s3AccessKeyId, secretAccessKey: s.s3SecretAccessKey } : undefined,
    partSizeBytes: s.s3PartSizeMb * 1024 * 1024,
  });
  await store.ready();
  return store;
}
