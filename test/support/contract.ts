/**
 * The contract check: every HTTP response a test receives from a test app is validated
 * against the response schema its route declares for that status (the same schemas that
 * make the OpenAPI document), so the document cannot drift from what the server sends.
 * `startTestApp` installs the hook on every app; `test/support/contract-setup.ts` fails the
 * running test when a response broke its route's contract.
 *
 * What is checked: the status is declared; a JSON body matches its schema (types, required
 * fields, enums, error codes per status); a non-JSON body has a declared content type.
 * Routes that declare no responses at all are left to the OpenAPI completeness test
 * (test/platform/openapi.test.ts); hidden routes (web pages, the documents) are skipped.
 *
 * SSE responses are written past Fastify (a hijacked reply), so their events are checked as
 * they are written: every event of a `text/event-stream` answer must be one its route declares
 * under `x-sse-events` (api-doc.ts `sse()`), and its `data` must match that event's schema.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../src/platform/http/types.js';

// biome-ignore lint/suspicious/noExplicitAny: ajv-formats is CommonJS with a default export
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export interface Violation {
  method: string;
  route: string;
  status: number;
  problem: string;
}

const violations: Violation[] = [];
const seen = new Set<string>();
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateFormats: true }));
const compiled = new WeakMap<object, ValidateFunction>();

/** Violations recorded since the last call (and clears them). */
export function takeViolations(): Violation[] {
  return violations.splice(0);
}

/** "METHOD route status" of every response checked in this process. */
export function checkedResponses(): ReadonlySet<string> {
  return seen;
}

// biome-ignore lint/suspicious/noExplicitAny: schemas are open JSON objects
type AnySchema = Record<string, any>;

/** The declared response for a status: exact, then `4XX`-style ranges, then `default`. */
export function declaredResponse(responses: AnySchema, status: number): AnySchema | undefined {
  return (
    responses[status] ??
    responses[String(status)] ??
    responses[`${String(status)[0]}xx`] ??
    responses[`${String(status)[0]}XX`] ??
    responses.default
  );
}

function validatorFor(schema: AnySchema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

export function checkResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown): Violation | null {
  const schema = request.routeOptions.schema as AnySchema | undefined;
  const route = request.routeOptions.url;
  if (!route || schema?.hide) return null;
  const responses = schema?.response as AnySchema | undefined;
  if (!responses) return null;
  const status = reply.statusCode;
  const method = request.method;
  seen.add(`${method} ${route} ${status}`);
  const fail = (problem: string): Violation => ({ method, route, status, problem });
  const declared = declaredResponse(responses, status);
  if (!declared) {
    return fail(
      `status ${status} is not declared in schema.response (declared: ${Object.keys(responses).join(', ')}); body: ${String(payload).slice(0, 300)}`,
    );
  }
  const type = String(reply.getHeader('content-type') ?? '')
    .split(';')[0]
    ?.trim();
  if (declared.type === 'null') return null;
  let bodySchema: AnySchema | undefined = declared;
  if (declared.content) {
    const media = declared.content[type ?? ''];
    if (!media) return fail(`content type "${type}" is not declared (declared: ${Object.keys(declared.content).join(', ')})`);
    bodySchema = media.schema;
    if (!type?.includes('json')) return null;
  } else if (type && !type.includes('json')) {
    // A JSON schema without content types: only JSON bodies are valid here.
    if (status === 204 || payload === undefined || payload === '') return null;
    return fail(`answered ${type} but the declared response is JSON`);
  }
  if (!bodySchema || typeof payload !== 'string') return null;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return fail('body is not JSON');
  }
  const validate = validatorFor(bodySchema);
  if (validate(body)) return null;
  const why = (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`,
    )
    .join('; ');
  return fail(`body does not match the declared schema: ${why}; body: ${payload.slice(0, 400)}`);
}

/** The declared events of a route's SSE answer (status 200), if it has one. */
function sseEventsOf(request: FastifyRequest): Record<string, AnySchema> | undefined {
  const schema = request.routeOptions.schema as AnySchema | undefined;
  if (!schema || schema.hide) return undefined;
  return schema.response?.[200]?.content?.['text/event-stream']?.schema?.['x-sse-events'];
}

/** Checks one SSE event block against the declared events; null when it conforms. */
export function checkSseEvent(events: Record<string, AnySchema>, block: string): string | null {
  const lines = block.split('\n');
  const name = lines
    .find((l) => l.startsWith('event:'))
    ?.slice(6)
    .trim();
  const dataLines = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
  if (!name) return dataLines.length ? `an event without a name: ${block.slice(0, 200)}` : null; // comments, heartbeats
  const schema = events[name];
  if (!schema) return `event "${name}" is not declared (declared: ${Object.keys(events).join(', ')})`;
  let data: unknown;
  try {
    data = JSON.parse(dataLines.join('\n'));
  } catch {
    return `event "${name}": data is not JSON`;
  }
  const validate = validatorFor(schema);
  if (validate(data)) return null;
  const why = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
  return `event "${name}" does not match its schema: ${why}; data: ${dataLines.join('\n').slice(0, 400)}`;
}

/**
 * Wraps the raw response of an SSE route so each event written is checked (the reply is
 * hijacked, so Fastify's onSend never sees it). Only 2xx `text/event-stream` answers count.
 */
function watchSse(request: FastifyRequest, reply: FastifyReply): void {
  const events = sseEventsOf(request);
  if (!events) return;
  const res = reply.raw;
  const method = request.method;
  const route = request.routeOptions.url ?? request.url;
  let isStream = false;
  let buffer = '';
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
  // biome-ignore lint/suspicious/noExplicitAny: writeHead's overloads are wrapped as they come
  (res as any).writeHead = (status: number, ...rest: unknown[]) => {
    const headers = rest.find((r) => r && typeof r === 'object') as Record<string, unknown> | undefined;
    const type = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    isStream = status < 300 && String(type ?? res.getHeader('content-type') ?? '').startsWith('text/event-stream');
    return writeHead(status, ...rest);
  };
  const inspect = (chunk: unknown) => {
    if (!isStream || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    buffer += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      const name = /^event: ?(.*)$/m.exec(block)?.[1];
      if (name) seen.add(`SSE ${method} ${route} ${name}`);
      const problem = checkSseEvent(events, block);
      if (problem) violations.push({ method, route, status: res.statusCode, problem });
    }
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  // biome-ignore lint/suspicious/noExplicitAny: write's overloads are wrapped as they come
  (res as any).write = (chunk: unknown, ...rest: unknown[]) => {
    inspect(chunk);
    return write(chunk, ...rest);
  };
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  // biome-ignore lint/suspicious/noExplicitAny: end's overloads are wrapped as they come
  (res as any).end = (chunk?: unknown, ...rest: unknown[]) => {
    inspect(chunk);
    return end(chunk, ...rest);
  };
}

/** Adds the checking hooks to an app (before it listens). */
export function installContract(app: HttpApp): void {
  app.addHook('onRequest', async (request, reply) => {
    watchSse(request, reply);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    try {
      const v = checkResponse(request, reply, payload);
      if (v) violations.push(v);
    } catch (err) {
      violations.push({
        method: request.method,
        route: request.routeOptions.url ?? request.url,
        status: reply.statusCode,
        problem: `schema could not be checked: ${(err as Error).message}`,
      });
    }
    return payload;
  });
}
