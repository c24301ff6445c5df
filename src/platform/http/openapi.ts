/**
 * The document-level parts of the OpenAPI document (served at /api/v1/openapi.json): info,
 * licence, servers, security schemes, and an `operationId` for every operation. Routes
 * describe themselves in their own `schema` (src/platform/http/api-doc.ts); what client
 * generators need beyond that is added here, in one place, so no route can forget it.
 */
import type { SwaggerOptions } from '@fastify/swagger';

/**
 * A stable operationId from the method and the path, unless the route names its own:
 * `GET /api/v1/tasks/:taskId/transcript` is `getTasksByTaskIdTranscript`. Paths outside
 * /api/v1 (the real-time service's) are prefixed `realtime` so `/version` and
 * `/api/v1/version` stay distinct. Generators turn these into method names, so they must not
 * change once published: a rename is a breaking change of generated clients.
 */
export function operationIdOf(method: string, url: string): string {
  const api = url.startsWith('/api/v1/');
  const words = (api ? url.slice('/api/v1/'.length) : `realtime/${url.replace(/^\//, '')}`)
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = segment.startsWith(':') ? segment.slice(1) : /^\{(.+)\}$/.exec(segment)?.[1];
      return param ? `By${capitalize(param)}` : segment.split(/[-_.]/).map(capitalize).join('');
    });
  return `${method.toLowerCase()}${words.join('')}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function openApiOptions(version: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version,
        description: 'Speech transcription, translation and broadcast service (interface v1.24.1).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the server that serves this document. The real-time paths (/version,
      // /tasks/{taskId}/subtitle, /broadcast/{token}/text) are on the real-time service, which is
      // this same server unless the deployment splits roles (then its realtime_url).
      servers: [{ url: '/', description: 'The Parley server that serves this document' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'SSE routes only (browser EventSource)' },
        },
      },
    },
    // Paths stay as routed ("/" has no base path to strip).
    stripBasePath: false,
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
      const own = (schema as { operationId?: string } | undefined)?.operationId;
      return { schema: { ...schema, operationId: own ?? operationIdOf(method, url) } as typeof schema, url };
    },
  };
}
