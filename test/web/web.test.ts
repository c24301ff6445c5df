/**
 * The web client is served by the api role: the page at `/`, its script and style under
 * `/web/`, with a strict CSP; nothing else under `/web/`; the script is valid JavaScript and
 * calls only endpoints this server has.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

describe('web client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('serves the page, script and style with a strict Content-Security-Policy', async () => {
    const page = await fetch(`${t.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('Live captions');
    expect(html).toContain('/web/app.js');
    const js = await fetch(`${t.url}/web/app.js`);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(await js.text()).toContain('/api/v1/auth/ticket');
    expect((await fetch(`${t.url}/web/style.css`)).headers.get('content-type')).toContain('text/css');
  });

  it('serves nothing else: other names and path tricks are 404', async () => {
    for (const path of ['/web/package.json', '/web/..%2Fpackage.json', '/web/%2E%2E%2Fsrc%2Fapp.ts', '/web/index.html.bak']) {
      const r = await fetch(`${t.url}${path}`);
      expect(r.status, path).toBe(404);
    }
  });

  it('the script parses, and every API path it calls exists in the OpenAPI document', async () => {
    const file = join(import.meta.dirname, '..', '..', 'web', 'app.js');
    execFileSync(process.execPath, ['--check', file]);
    const source = readFileSync(file, 'utf8');
    const called = [...source.matchAll(/[`'](\/api\/v1\/[^`'?$]*)/g)].map((m) => m[1]!.replace(/\/$/, ''));
    const spec = (await (await fetch(`${t.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(spec.paths).map((p) => p.replace(/\{[^}]+\}/g, '').replace(/\/$/, ''));
    for (const p of called)
      expect(
        paths.some((x) => x === p || x.startsWith(p)),
        p,
      ).toBe(true);
    expect(called.length).toBeGreaterThan(4);
  });
});
