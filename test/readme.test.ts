/**
 * The README tells the truth: its feature table names exactly the operations the server
 * serves (both ways), and its five-minute walk runs top to bottom with bash against a real
 * server on a port other than the default, using only files in the repository. The walk's two
 * `export` lines are what the reader fills in (base URL and key); the test sets the same two
 * variables to its own server's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FirstStartServer, startFirstStartServer } from './support/server.js';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text between `<!-- name:start -->` and `<!-- name:end -->`. */
function marked(name: string): string {
  const a = README.indexOf(`<!-- ${name}:start -->`);
  const b = README.indexOf(`<!-- ${name}:end -->`);
  if (a < 0 || b < a) throw new Error(`README.md has no ${name} markers`);
  return README.slice(a, b);
}

describe('README', () => {
  let started: FirstStartServer;
  let base: string;
  let key: string;
  beforeAll(async () => {
    // Not 8080: the walk must work on another port through PARLEY_BASE_URL alone.
    started = await startFirstStartServer({ PARLEY_WHISPER: 'off' });
    ({ base, key } = started);
  }, 90_000);
  afterAll(() => started?.stop());

  it('the feature table names every served operation, and only served ones', async () => {
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const named = [...marked('features').matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`\s]*)`/g)].map((m) => m[1]);
    expect(
      named.filter((op) => !served.includes(op!)),
      'named but not served',
    ).toEqual([]);
    expect(
      served.filter((op) => !named.includes(op)),
      'served but not named',
    ).toEqual([]);
    expect(marked('features')).not.toMatch(/not yet/i);
  });

  it('the five-minute walk runs top to bottom on another port with files from the repository', async () => {
    const block = /```sh\n([\s\S]*?)```/.exec(marked('quickstart'))![1]!;
    const script = block
      .split('\n')
      .filter((l) => !/^export PARLEY_(BASE_URL|API_KEY)=/.test(l))
      .join('\n');
    expect(script).toContain('examples/audio/sense-and-sensibility.wav');
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-euo', 'pipefail', '-c', script],
        { cwd: ROOT, env: { ...process.env, PARLEY_BASE_URL: base, PARLEY_API_KEY: key }, timeout: 240_000, maxBuffer: 16 << 20 },
        (err, out, errOut) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
      ),
    );
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    expect(stdout).toContain('"version":"1.24.1"');
    expect(stdout).toMatch(/event: completed/);
    expect(stdout).toMatch(/event: init_sentence[\s\S]*"es":/);
    expect(stdout).toMatch(/event: init_summary/);
    expect(stdout).toMatch(/^summary: .+/m);
    expect(stdout).toMatch(/^done: task [0-9a-f-]{36}, [1-9]\d* sentences$/m);
    expect(stderr).toBe('');
  }, 300_000);
});
