import { Type } from 'typebox';
import { errors, since } from '../platform/http/api-doc.js';
import { okShared } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';

import { INTERFACE_VERSION } from './interface-version.js';

export { INTERFACE_VERSION };

const VersionSchema = Type.Object({ data: Type.Object({ service: Type.String(), version: Type.String(), build: Type.String() }) });

/**
 * `GET /api/v1/version` (svc-api) and `GET /version` (svc-realtime): both report the
 * interface version this server implements and the build (package version + commit).
 * Wrapped in `data` like every success body ("unless stated", and the spec states no exception).
 * The answer never changes while the process runs: one frozen body, its JSON made once (okShared).
 */
export function registerVersionRoutes(app: HttpApp, options: { build: string; roles: readonly string[] }): void {
  const schema = { response: { 200: VersionSchema, ...errors([]) }, security: [], ...since('1.7.7') };
  const body = (service: string) => okShared(Object.freeze({ service, version: INTERFACE_VERSION, build: options.build }));
  if (options.roles.includes('api')) {
    const api = body('svc-api');
    app.get(
      '/api/v1/version',
      { schema: { ...schema, tags: ['version'], summary: 'Version of the REST service (svc-api); no authentication' } },
      async () => api,
    );
  }
  if (options.roles.includes('realtime')) {
    const realtime = body('svc-realtime');
    app.get(
      '/version',
      { schema: { ...schema, tags: ['version'], summary: 'Version of the real-time service (svc-realtime), on {realtime_url}' } },
      async () => realtime,
    );
  }
}
