/** Writes examples/openapi-fetch/parley-api.d.ts (openapi-typescript) from the served OpenAPI document. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { OPENAPI_FETCH_TYPES, openapiFetchTypes } from './openapi-fetch-types.js';
import { servedOpenApi } from './served-openapi.js';

mkdirSync(new URL('.', OPENAPI_FETCH_TYPES), { recursive: true });
writeFileSync(OPENAPI_FETCH_TYPES, await openapiFetchTypes(await servedOpenApi()));
console.log('examples/openapi-fetch/parley-api.d.ts written');
