/**
 * src/client/api-types.ts is generated from the served OpenAPI document and the AsyncAPI
 * document: a route schema changed without `npm run client:types` fails here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypesSource } from '../../scripts/client-types.js';
import { asyncApiDocument } from '../../src/asyncapi.js';
import { api, startTestApp, type TestApp } from '../support/app.js';

describe('client types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('api-types.ts matches the documents the server serves (run npm run client:types)', async () => {
    const doc = await api(t.url, 'GET', '/api/v1/openapi.json');
    const fresh = clientTypesSource(doc.body, asyncApiDocument());
    const file = readFileSync(new URL('../../src/client/api-types.ts', import.meta.url), 'utf8');
    expect(file === fresh, 'src/client/api-types.ts is stale: run npm run client:types').toBe(true);
  });

  it('every operation of the document is in the types (none left out)', async () => {
    const doc = await api(t.url, 'GET', '/api/v1/openapi.json');
    const file = readFileSync(new URL('../../src/client/api-types.ts', import.meta.url), 'utf8');
    const ops = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(ops.length).toBeGreaterThan(50);
    for (const op of ops) expect(file).toContain(JSON.stringify(op));
  });
});
