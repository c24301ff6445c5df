/**
 * A real S3-protocol server for the suites (s3rver in a child process, files in a temp folder):
 * the S3 blob store is tested over HTTP against it, with no service to install. `env` is the
 * configuration a Parley process needs to use it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../src/storage/s3.js';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  /** A store on a fresh bucket of this server. */
  store(prefix?: string): S3BlobStore;
  close(): Promise<void>;
}

// s3rver's fixed development credentials.
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3Server(bucket = 'parley-test'): Promise<TestS3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-s3-'));
  const main = new URL('./s3-server-main.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', main, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`s3rver exited with ${code} before listening`);
    }),
  ])) as [string];
  const { port } = JSON.parse(line) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const stores: S3BlobStore[] = [];
  const make = (prefix = '') => {
    const s = new S3BlobStore({
      bucket,
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      prefix,
      credentials,
      partSizeBytes: 5 * 1024 * 1024,
    });
    stores.push(s);
    return s;
  };
  await make().client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    env: {
      PARLEY_S3_BUCKET: bucket,
      PARLEY_S3_ENDPOINT: endpoint,
      PARLEY_S3_FORCE_PATH_STYLE: 'true',
      PARLEY_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      PARLEY_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    store: make,
    async close() {
      for (const s of stores) s.close();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
