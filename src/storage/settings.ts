/**
 * Where blobs (audio, voice samples) live: local disk under PARLEY_DATA_DIR/blobs by default,
 * or an S3-compatible bucket when PARLEY_S3_BUCKET is set (every node then reads and writes
 * the same objects, so no data folder has to be shared).
 */
import type { PlatformConfig } from '../platform/config/platform-settings.js';
import { defineSection, type SectionValues, settings } from '../platform/config/settings.js';

export const storageSettings = defineSection({
  s3Bucket: settings.optionalString(
    'PARLEY_S3_BUCKET',
    'S3-compatible bucket for audio and other blobs (it must exist). Unset: local disk under PARLEY_DATA_DIR/blobs.',
  ),
  s3Endpoint: settings.url(
    'PARLEY_S3_ENDPOINT',
    'Endpoint of an S3-compatible server (MinIO, Ceph, Garage...). Unset: AWS S3 of PARLEY_S3_REGION.',
    ['http:', 'https:'],
  ),
  s3Region: settings.string('PARLEY_S3_REGION', 'Region of the bucket.', 'us-east-1'),
  s3ForcePathStyle: settings.bool(
    'PARLEY_S3_FORCE_PATH_STYLE',
    'Address the bucket as <endpoint>/<bucket> instead of <bucket>.<endpoint> (most self-hosted S3 servers need it).',
    false,
  ),
  s3Prefix: settings.custom(
    'PARLEY_S3_PREFIX',
    'Prefix of every object key (e.g. "parley/"), to share a bucket with other data.',
    '',
    (raw) => (raw && !raw.endsWith('/') ? `${raw}/` : raw),
  ),
  s3AccessKeyId: settings.optionalString(
    'PARLEY_S3_ACCESS_KEY_ID',
    "Access key of the bucket. Unset: the AWS SDK's default credentials (AWS_ACCESS_KEY_ID, profiles, instance roles).",
  ),
  s3SecretAccessKey: settings.optionalString('PARLEY_S3_SECRET_ACCESS_KEY', 'Secret key belonging to PARLEY_S3_ACCESS_KEY_ID.'),
  s3PartSizeMb: settings.int(
    'PARLEY_S3_PART_SIZE_MB',
    'Part size of multipart uploads; an upload holds at most two parts in memory, whatever the file size.',
    8,
    { min: 5, max: 512 },
  ),
});

/** What opening the blob store reads of the configuration. */
export interface StorageConfig {
  storage: SectionValues<typeof storageSettings>;
  platform: PlatformConfig;
}
