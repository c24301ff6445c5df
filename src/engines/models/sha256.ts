import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** The sha256 of a file, streamed (model files are gigabytes). */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
