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

/** Adds the checking hook to an app (before it listens). */
export function installContract(app: HttpApp): void {
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
