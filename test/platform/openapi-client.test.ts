/**
 * The OpenAPI document as client generators and linters see it, on a real server process:
 * Redocly's linter (recommended rules) finds no error; every operation that answers
 * auth_missing_api_key without a key declares a security requirement and no other does; and a
 * client made by third-party generators (openapi-typescript types, openapi-fetch calls:
 * examples/openapi-fetch/client.ts) compiles against freshly generated types and gets real
 * answers, errors included.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiFetchTypes } from '../../scripts/openapi-fetch-types.js';
import { type FirstStartServer, freePort, startFirstStartServer } from '../support/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

describe('OpenAPI document for generators (real server)', () => {
  let started: FirstStartServer;
  let base: string;
  let key: string;
  let doc: Json;
  // Inside node_modules so the generated program resolves openapi-fetch and @types/node.
  const work = (() => {
    mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
    return mkdtempSync(join(ROOT, 'node_modules', '.cache', 'parley-openapi-client-'));
  })();

  beforeAll(async () => {
    started = await startFirstStartServer({ PARLEY_WHISPER: 'off' });
    ({ base, key } = started);
    doc = await (await fetch(`${base}/api/v1/openapi.json`)).json();
  }, 90_000);
  afterAll(async () => {
    await started?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('Redocly lint (recommended): no errors; the only warnings are version routes without a 4xx', () => {
    const file = join(work, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = spawnSync(join(BIN, 'redocly'), ['lint', file, '--format=json', '--max-problems=10000'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const problems = (report.problems as Json[]).map((p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer}`);
    expect(
      problems.filter((p) => p.startsWith('error')),
      r.stderr,
    ).toEqual([]);
    expect(problems).toEqual([
      'warn operation-4xx-response #/paths/~1api~1v1~1version/get/responses',
      'warn operation-4xx-response #/paths/~1version/get/responses',
    ]);
    expect(r.status).toBe(0);
  }, 60_000);

  it('servers, a unique operationId on every operation, no required parameter with a default', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const ids = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.values(item).map((op: Json) => op.operationId));
    expect(ids.length).toBeGreaterThanOrEqual(57);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // A parameter the server fills in when absent is optional (GET /me/usage page, per_page).
    const requiredWithDefault = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Json>).flatMap(([method, op]) =>
        (op.parameters ?? [])
          .filter((p: Json) => p.required && p.schema?.default !== undefined)
          .map((p: Json) => `${method} ${path} ${p.name}`),
      ),
    );
    expect(requiredWithDefault).toEqual([]);
  });

  it('security is declared exactly where the server asks for a key', async () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const url = base + path.replace(/\{taskId\}|\{importId\}|\{id\}/g, '00000000-0000-0000-0000-000000000000').replace(/\{\w+\}/g, 'x');
        const res = await fetch(url, {
          method: method.toUpperCase(),
          headers: method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' },
          body: method === 'get' || method === 'delete' ? undefined : '{}',
          signal: AbortSignal.timeout(10_000),
        }).catch(() => null);
        const body: Json = res && /json/.test(res.headers.get('content-type') ?? '') ? await res.json().catch(() => null) : null;
        if (res?.body && !res.bodyUsed) await res.body.cancel();
        // Subtitle-token routes answer {error: code} (the spec's exception), the others {data: {error_code}}.
        const asksForKey = (body?.data?.error_code ?? body?.error) === 'auth_missing_api_key';
        const declares = (op.security ?? doc.security ?? []).length > 0;
        if (asksForKey !== declares)
          wrong.push(`${method.toUpperCase()} ${path}: answers ${res?.status}, declares ${JSON.stringify(op.security)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('a client generated by openapi-typescript + openapi-fetch compiles and gets real answers', async () => {
    writeFileSync(join(work, 'parley-api.d.ts'), await openapiFetchTypes(doc));
    copyFileSync(join(ROOT, 'examples', 'openapi-fetch', 'client.ts'), join(work, 'client.ts'));
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['.'], exclude: [] }));
    const tsc = spawnSync(join(BIN, 'tsc'), ['--noEmit', '-p', join(work, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    const run = spawnSync(process.execPath, ['--import', 'tsx', join(work, 'client.ts'), '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PARLEY_API_KEY: key, PARLEY_BASE_URL: base },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.version).toBe('1.24.1');
    expect(r.planStatus).toBe(200);
    expect(r.usage).toEqual({ total: expect.any(Number), per_page: 20 });
    expect(r.templates).toContain('general-summary');
    expect(r.voices.length).toBeGreaterThan(0);
    expect(r.quotaAllowed).toBe(true);
    expect(r.missingTask).toEqual({ status: 404, code: 'recording_not_found' });
    expect(r.badTemplate).toEqual({ status: 404, code: 'template_not_found' });
  }, 120_000);

  it('the example says which server it could not reach', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'openapi-fetch', 'client.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PARLEY_API_KEY: 'svc_x', PARLEY_BASE_URL: closed },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`error: no Parley server answers at ${closed} (ECONNREFUSED); set PARLEY_BASE_URL`);
  });
});
