/**
 * Writes src/client/api-types.ts from the OpenAPI document of a freshly built app. Run after
 * changing a route schema: `npm run client:types`.
 */
import { writeFileSync } from 'node:fs';
import { asyncApiDocument } from '../src/asyncapi.js';
import { clientTypesSource } from './client-types.js';
import { servedOpenApi } from './served-openapi.js';

const out = new URL('../src/client/api-types.ts', import.meta.url);
writeFileSync(out, clientTypesSource(await servedOpenApi(), asyncApiDocument()));
console.log('src/client/api-types.ts written');
