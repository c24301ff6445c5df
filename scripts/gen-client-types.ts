/**
 * Writes src/client/api-types.ts from the OpenAPI document of a freshly built app (temporary
 * data folder, nothing listens). Run after changing a route schema: `npm run client:types`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logging.js';
import { asyncApiDocument } from '../src/realtime/asyncapi.js';
import { clientTypesSource } from './client-types.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-client-types-'));
try {
  const config = loadConfig({ PARLEY_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' });
  const app = await buildApp(config, { logger: createLogger('silent') });
  await app.http.ready();
  const doc = app.http.swagger();
  const out = new URL('../src/client/api-types.ts', import.meta.url);
  writeFileSync(out, clientTypesSource(doc, asyncApiDocument()));
  await app.close();
  console.log('src/client/api-types.ts written');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
