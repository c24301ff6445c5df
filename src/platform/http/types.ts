import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ErrorShape } from '../errors/app-error.js';
import type { ErrorVariant } from '../errors/registry.js';

/** The Fastify instance type every route module receives. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** CORS policy of a route: `public` (any origin, no credentials) or `private` (allowlist). */
export type CorsPolicy = 'public' | 'private';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error body shape for this route (default `standard`). */
    errorShape?: ErrorShape;
    /** Status table variant for this route (default `rest`; `sse` for SSE routes). */
    errorVariant?: ErrorVariant;
    cors?: CorsPolicy;
  }
}
