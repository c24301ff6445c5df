/**
 * The OpenAPI document is complete (every operation has its summary, path parameters, request
 * body, success responses with a body schema or content type, and error responses listing
 * their codes), and the contract hook (test/support/contract.ts) really catches a response
 * that differs from its route's declared schema.
 */
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../../src/platform/http/api-doc.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { takeViolations } from '../support/contract.js';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

/** POST/PUT operations that take no body by design (the spec: "No body"). */
const BODYLESS = [
  'POST /api/v1/auth/ticket',
  'PUT /api/v1/tasks/{taskId}/read',
  'POST /api/v1/tasks/{taskId}/force-fail',
  'POST /api/v1/tasks/{taskId}/retry',
  'POST /api/v1/broadcasts/{id}/revoke',
  'POST /api/v1/auth/tasks/{taskId}/subtitle-feed-token',
  'POST /api/v1/auth/tasks/{taskId}/subtitle-share',
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  beforeAll(async () => {
    t = await startTestApp({
      routes: (app) => {
        // A route whose handler answers differently from its declared schema.
        app.http.get(
          '/test/contract-drift',
          { schema: { summary: 'drift', response: { 200: Type.Object({ data: Type.Object({ n: Type.Integer() }) }), ...errors([]) } } },
          // biome-ignore lint/suspicious/noExplicitAny: the handler deliberately breaks its declared types
          (async (request: any, reply: any) => {
            const q = request.query as { as?: string };
            if (q.as === 'status') return reply.code(418).send({ data: { n: 1 } });
            return { data: { n: q.as === 'string' ? 'one' : 1 } };
          }) as never,
        );
      },
    });
    const res = await api(t.url, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => t.close());

  const operations = () => {
    const out: { key: string; path: string; method: string; op: Json }[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      if (path.startsWith('/test/')) continue;
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        out.push({ key: `${method.toUpperCase()} ${path}`, path, method, op });
      }
    }
    return out;
  };

  it('is OpenAPI 3.1 with the interface version and both security schemes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.description).toContain('1.24.1');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'apiKeyQuery']);
    expect(operations().length).toBeGreaterThanOrEqual(45);
  });

  it('every operation has a summary, a tag, its path parameters, and a body where it takes one', () => {
    const problems: string[] = [];
    for (const { key, path, method, op } of operations()) {
      if (!op.summary) problems.push(`${key}: no summary`);
      if (!op.tags?.length) problems.push(`${key}: no tags`);
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        const p = (op.parameters ?? []).find((x: Json) => x.in === 'path' && x.name === name);
        if (!p?.schema?.type) problems.push(`${key}: path parameter ${name} has no schema`);
        else if (!p.schema.description && !p.description && !p.schema.format)
          problems.push(`${key}: path parameter ${name} is not described`);
      }
      const wantsBody = ['post', 'put', 'patch'].includes(method) && !BODYLESS.includes(key);
      if (wantsBody && !op.requestBody) problems.push(`${key}: no request body`);
    }
    expect(problems).toEqual([]);
  });

  it('every operation declares a success response with content and error responses with their codes', () => {
    const problems: string[] = [];
    for (const { key, op } of operations()) {
      const statuses = Object.keys(op.responses ?? {});
      const success = statuses.filter((s) => s.startsWith('2'));
      if (success.length === 0) problems.push(`${key}: no 2xx response`);
      for (const s of success) {
        if (!op.responses[s].content) problems.push(`${key}: ${s} has no content`);
      }
      const failures = statuses.filter((s) => /^[45]/.test(s));
      if (failures.length === 0) problems.push(`${key}: no error responses`);
      for (const s of failures) {
        const r = op.responses[s];
        if (!r.content && r.description && r.description !== 'Default Response') continue; // no body by design (416)
        if (!r.content?.['application/json']?.schema) problems.push(`${key}: ${s} has no schema`);
        if (!/`[a-z_]+`/.test(r.description ?? '')) problems.push(`${key}: ${s} names no error code`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares real statuses: imports 202, retry 202, audio 206 and the error shapes of each family', () => {
    const op = (m: string, p: string) => doc.paths[p][m];
    expect(Object.keys(op('post', '/api/v1/imports').responses)).toContain('202');
    expect(Object.keys(op('post', '/api/v1/imports').responses)).not.toContain('200');
    expect(Object.keys(op('post', '/api/v1/tasks/{taskId}/retry').responses)).toContain('202');
    expect(Object.keys(op('get', '/api/v1/sse/audio/{taskId}').responses)).toEqual(expect.arrayContaining(['200', '206', '416']));
    // Multipart form documented field by field.
    const form = op('post', '/api/v1/imports').requestBody.content['multipart/form-data'].schema;
    expect(Object.keys(form.properties)).toEqual(
      expect.arrayContaining([
        'file',
        'transcription_languages',
        'recognition_mode',
        'terminology',
        'fuzzy_correction',
        'translation_dict',
      ]),
    );
    expect(form.required).toEqual(expect.arrayContaining(['file', 'transcription_languages', 'recognition_mode']));
    // Query parameters.
    const names = (m: string, p: string) => (op(m, p).parameters ?? []).map((x: Json) => x.name);
    expect(names('get', '/api/v1/tasks')).toEqual(expect.arrayContaining(['status', 'task_ids[]']));
    expect(names('get', '/api/v1/me/usage')).toEqual(expect.arrayContaining(['page', 'per_page']));
    expect(names('get', '/api/v1/tasks/{taskId}/transcript/export')).toEqual(expect.arrayContaining(['format', 'language', 'speakers']));
    // Error shapes: {error} for subtitle tokens, {errorCode, message} for templates, standard elsewhere.
    const schema410 = op('post', '/api/v1/auth/tasks/{taskId}/subtitle-feed-token').responses['410'].content['application/json'].schema;
    expect(Object.keys(schema410.properties)).toEqual(['error']);
    const schema404 = op('get', '/api/v1/summary-templates/{slug}').responses['404'].content['application/json'].schema;
    expect(Object.keys(schema404.properties).sort()).toEqual(['errorCode', 'message']);
    const schema401 = op('get', '/api/v1/summary-templates/{slug}').responses['401'].content['application/json'].schema;
    expect(Object.keys(schema401.properties)).toEqual(['data']);
    // SSE routes document their events; versions are named where the interface names them.
    expect(op('get', '/api/v1/sse/history/transcribe/{taskId}').responses['200'].content['text/event-stream']).toBeDefined();
    expect(op('post', '/api/v1/glossary/validate')['x-since']).toBe('1.14.0');
    expect(op('get', '/api/v1/me/key')['x-since']).toBe('1.21.0');
  });

  it('the contract hook reports a body, a type or a status that differs from the declared schema', async () => {
    takeViolations();
    expect((await api(t.url, 'GET', '/test/contract-drift')).status).toBe(200);
    expect(takeViolations()).toEqual([]);
    await api(t.url, 'GET', '/test/contract-drift?as=string');
    const [typeViolation] = takeViolations();
    expect(typeViolation?.problem).toMatch(/\/data\/n must be integer/);
    await api(t.url, 'GET', '/test/contract-drift?as=status');
    const [statusViolation] = takeViolations();
    expect(statusViolation).toMatchObject({ route: '/test/contract-drift', status: 418 });
    expect(statusViolation?.problem).toMatch(/status 418 is not declared/);
  });
});
