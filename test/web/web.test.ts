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

  it('serves the broadcast pages for any token: the viewer page and the overlay, embeddable, talking to this origin only', async () => {
    for (const [path, marker] of [
      ['/b/k3x9', '/web/viewer.js'],
      ['/b/k3x9/overlay', '/web/overlay.js'],
    ] as const) {
      const r = await fetch(`${t.url}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/html');
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("connect-src 'self';");
      expect(csp).toContain('frame-ancestors *');
      expect(csp).toContain("form-action 'none'");
      expect(await r.text()).toContain(marker);
    }
    for (const file of ['viewer.js', 'overlay.js', 'captions.js', 'viewer.css', 'overlay.css'])
      expect((await fetch(`${t.url}/web/${file}`)).status, file).toBe(200);
  });

  it('the scripts parse, and every API path they call exists in the OpenAPI document', async () => {
    const files = ['app.js', 'viewer.js', 'overlay.js', 'captions.js'].map((f) => join(import.meta.dirname, '..', '..', 'web', f));
    for (const file of files) execFileSync(process.execPath, ['--check', file]);
    const source = files.map((f) => readFileSync(f, 'utf8')).join('\n');
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
