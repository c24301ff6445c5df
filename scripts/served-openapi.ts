/**
 * The OpenAPI document exactly as a server serves it, from a freshly built app (temporary
 * data folder, nothing listens): the input of the client generators (gen-client-types.ts,
 * gen-openapi-client.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logging.js';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is plain JSON
export async function servedOpenApi(): Promise<any> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
  try {
    const config = loadConfig({ PARLEY_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' });
    const app = await buildApp(config, { logger: createLogger('silent') });
    await app.http.ready();
    const doc = app.http.swagger();
    await app.close();
    return doc;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
