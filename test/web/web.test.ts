/**
 * The web client is served by the api role: the console page at `/`, its bundle and style
 * under `/web/`, with a strict CSP (no inline script in the page); nothing else under `/web/`;
 * the scripts are valid JavaScript and call only endpoints this server has.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { startTestApp, type TestApp } from '../support/app.js';

const WEB = join(import.meta.dirname, '..', '..', 'web');

describe('web client', () => {
  let t: TestApp;
  beforeAll(async () => {
    await buildConsole();
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('serves the console page, its bundle and style with a strict Content-Security-Policy', async () => {
    const page = await fetch(`${t.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/web/console.js"></script>');
    // No inline script: every <script> has a src.
    expect([...html.matchAll(/<script\b[^>]*>/g)].every((m) => m[0].includes('src='))).toBe(true);
    const js = await fetch(`${t.url}/web/console.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.headers.get('content-security-policy')).toBe(csp);
    expect(await js.text()).toContain('/api/v1/me/plan');
    expect((await fetch(`${t.url}/web/style.css`)).headers.get('content-type')).toContain('text/css');
  });

  it('serves nothing else: other names and path tricks are 404', async () => {
    for (const path of [
      '/web/package.json',
      '/web/..%2Fpackage.json',
      '/web/%2E%2E%2Fsrc%2Fapp.ts',
      '/web/index.html.bak',
      '/web/app.js',
      '/web/main.tsx',
      '/web/console%2Fapi.ts',
      '/web/build%2Fconsole.js',
    ]) {
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

  it('the scripts parse; the pages call only paths of the OpenAPI document, the console only through the typed client', async () => {
    const files = ['viewer.js', 'overlay.js', 'captions.js', 'build/console.js'].map((f) => join(WEB, f));
    for (const file of files) execFileSync(process.execPath, ['--check', file]);
    // The console names no path itself: every call goes through src/client (typed from the OpenAPI and AsyncAPI documents).
    const consoleSources = readdirSync(join(WEB, 'console'))
      .filter((f) => /\.tsx?$/.test(f))
      .map((f) => readFileSync(join(WEB, 'console', f), 'utf8'))
      .join('\n');
    expect(consoleSources).not.toMatch(/[`'"]\/api\/v1\//);
    expect(consoleSources).toContain("from '../../src/client/index.js'");
    const source = files
      .slice(0, 3)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const called = [...source.matchAll(/[`'](\/api\/v1\/[^`'?$]*)/g)].map((m) => m[1]!.replace(/\/$/, ''));
    const spec = (await (await fetch(`${t.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(spec.paths).map((p) => p.replace(/\{[^}]+\}/g, '').replace(/\/$/, ''));
    for (const p of called)
      expect(
        paths.some((x) => x === p || x.startsWith(p)),
        p,
      ).toBe(true);
    expect(called.length).toBeGreaterThan(1);
  });
});
