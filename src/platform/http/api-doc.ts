/**
 * Building blocks for the route schemas that make the OpenAPI document (served at
 * /api/v1/openapi.json, rendered at /api/v1/docs). Every route declares, in its own
 * `schema`: summary, tags, security, params, querystring, body and `response` with every
 * success status and every error status it can answer, each error listing its codes in the
 * shape that route really uses. One place per concern: the registry gives each code its
 * status, the route gives the codes.
 *
 * Response schemas document and are checked by the contract test (test/support/contract.ts
 * validates every response the test suite receives); they never change what is sent
 * (server.ts installs a plain JSON serializer, so a schema cannot drop or coerce a field).
 * Request schemas are validated by Fastify, except on routes that check their input by hand
 * to give the spec's own codes without Fastify's coercion: those spread `documentedInput`.
 */
import { type TSchema, Type } from 'typebox';
import type { ErrorShape } from '../errors/app-error.js';
import { ERRORS, type ErrorCode, type ErrorVariant, statusOf } from '../errors/registry.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON schema fragments are open objects
type Schema = TSchema | Record<string, any>;

/** Nullable shorthand. */
export const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);
export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const IsoTime = (description?: string) => Type.String({ description: description ?? 'ISO 8601 UTC' });

/** `{data: schema}`: every JSON success body wraps its result in `data`. */
export const Data = (schema: Schema, extra: Record<string, Schema> = {}, description?: string) =>
  Type.Object({ data: schema as TSchema, ...(extra as Record<string, TSchema>) }, description ? { description } : {});

/** `{message, data}` bodies (rename, force-fail, retry, batch delete). */
export const MessageData = (schema: Schema, description?: string) =>
  Type.Object({ message: Type.String(), data: schema as TSchema }, description ? { description } : {});

/** Page metadata of paged lists. */
export const PageMeta = Type.Object({
  current_page: Type.Integer(),
  last_page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
});

export const TaskIdParams = Type.Object({ taskId: Uuid('Task id (UUID)') });

/**
 * Route option for routes that check their own input (a schema here documents it only):
 * no Fastify validation, no coercion, the handler's codes and messages stand.
 */
export const documentedInput = { validatorCompiler: () => () => true } as const;

/**
 * One of the listed strings: a single literal for one (a one-member `anyOf` is illogical to
 * linters and generators), a union for several, any string for none.
 */
export function oneOf(values: readonly string[]): TSchema {
  if (values.length === 0) return Type.String();
  if (values.length === 1) return Type.Literal(values[0] as string);
  return Type.Union(values.map((v) => Type.Literal(v)));
}

/** The standard error object (spec "Errors"), its code restricted to the listed ones. */
export function errorObject(codes: readonly string[]) {
  return Type.Object({
    error_code: oneOf(codes),
    severity: Type.Union([Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warning')]),
    message: Type.String({ description: 'Display text; do not parse' }),
    context: Type.String(),
    sid: Type.Optional(Type.Integer({ description: 'Sentence-level errors only' })),
    request_id: Type.Optional(Type.String()),
    timestamp: IsoTime(),
    details: Nullable(Type.Object({}, { additionalProperties: true })),
  });
}

/** Codes every API-key route can answer before its handler runs. */
export const AUTH_CODES: readonly ErrorCode[] = [
  'auth_missing_api_key',
  'auth_invalid_key_format',
  'auth_invalid_api_key',
  'auth_key_disabled',
  'auth_key_expired',
  'auth_account_blocked',
  'auth_user_disabled',
  'auth_ip_not_allowed',
  'auth_service_error',
];

export interface ErrorOptions {
  /** The route's `config.errorShape` (default standard). */
  shape?: ErrorShape;
  /** The route's `config.errorVariant` (default rest). */
  variant?: ErrorVariant;
  /** Adds the API-key codes. */
  auth?: boolean;
  /** Adds validation_failed (the route reads params, query or body). */
  input?: boolean;
  /** Adds the body framework codes: request_too_large, unsupported_media_type, validation_failed. */
  body?: boolean;
}

/**
 * Error responses for the listed codes, grouped by their status in the registry (for the
 * route's variant), each in the body shape that route answers with. internal_error is
 * always possible.
 */
export function errors(codes: readonly ErrorCode[], o: ErrorOptions = {}): Record<number, Schema> {
  const all = new Set<ErrorCode>([...codes]);
  if (o.auth) for (const c of AUTH_CODES) all.add(c);
  if (o.input || o.body) all.add('validation_failed');
  if (o.body) {
    all.add('request_too_large');
    all.add('unsupported_media_type');
  }
  all.add('internal_error');
  const variant = o.variant ?? 'rest';
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = statusOf(code, variant) ?? 500;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, Schema> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const special = list.filter((c) => specialShape(o.shape ?? 'standard', c, status));
    const standard = list.filter((c) => !special.includes(c));
    const variants: Schema[] = [];
    if (standard.length) variants.push(Type.Object({ data: errorObject(standard) }));
    if (special.length) {
      variants.push(
        o.shape === 'subtitle-token'
          ? Type.Object({ error: oneOf(special) })
          : Type.Object({ errorCode: oneOf(special), message: Type.String() }),
      );
    }
    const description = list.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join(' ');
    const shapeNote = special.length
      ? o.shape === 'subtitle-token'
        ? ' (shape `{error: <code>}`)'
        : ' (shape `{errorCode, message}`)'
      : '';
    const schema = variants.length === 1 ? (variants[0] as TSchema) : Type.Union(variants as TSchema[]);
    out[status] = { ...schema, description: `${description}${shapeNote}`, 'x-error-codes': list };
  }
  return out;
}

function specialShape(shape: ErrorShape, code: ErrorCode, status: number): boolean {
  if (shape === 'subtitle-token') return code !== 'too_many_requests';
  if (shape === 'summary-template') return status === 400 || status === 404;
  return false;
}

/** A response that is not JSON (a file, a stream of text): its content type and a description. */
export function binary(contentTypes: readonly string[], description: string, headers?: Record<string, Schema>) {
  const content: Record<string, { schema: Schema }> = {};
  for (const t of contentTypes) content[t] = { schema: { type: 'string', format: 'binary' } };
  return { description, content, ...(headers ? { headers } : {}) };
}

/**
 * An SSE response: `text/event-stream` with each event's `data` schema under `x-sse-events`
 * (OpenAPI has no vocabulary for event streams), in the order given.
 */
export function sse(description: string, events: Record<string, Schema>) {
  return {
    description: `${description} Events: ${Object.keys(events).join(', ')}.`,
    content: { 'text/event-stream': { schema: { type: 'string', 'x-sse-events': events } } },
  };
}

/** A 202/200 body-less answer. */
export const NoBody = (description: string) => ({ type: 'null', description });

/** The summary line plus the interface version that introduced the behaviour, when it names one. */
export function since(version: string): { 'x-since': string } {
  return { 'x-since': version };
}

/** The OpenAPI security requirement of API-key routes (header; SSE also accept ?api_key=). */
type Security = { [scheme: string]: string[] }[];
export const API_KEY: Security = [{ apiKey: [] }];
export const API_KEY_OR_QUERY: Security = [{ apiKey: [] }, { apiKeyQuery: [] }];
/** Routes without authentication. */
export const PUBLIC: Security = [];
