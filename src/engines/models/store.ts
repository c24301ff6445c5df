/**
 * The models folder: `<modelsDir>/<name>/` per installed model, and `models.lock.json`,
 * which records for each model the sha256 of the download and of every installed file.
 * The lock makes trust-on-first-use checks possible for models whose publisher states no
 * checksum, and lets `verify` detect a corrupted or edited model later.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ModelEntry } from './catalog.js';
import { sha256File } from './sha256.js';

export interface LockEntry {
  /**
   * sha256 of the downloaded file (archive or model file). From PyPI (pypiLockSha256): the
   * publisher's file when the wheels carry exactly it (joined from pieces or not), else the
   * pinned distribution's (several: the sha256 of their sha256s).
   */
  sha256: string;
  /**
   * 'published': matched the catalogue's checksum (for a PyPI origin: the pinned distribution's,
   * and every file taken or built from it matched the catalogue); 'first-use': recorded at the
   * first download.
   */
  trust: 'published' | 'first-use';
  /** The address (publisher or mirror), `file:<path>`, or the packages (`pypi:name==version,...`). */
  source: string;
  /** Where the files came from: the publisher's address (the default of older locks) or the catalogue's PyPI package. */
  origin?: 'publisher' | 'pypi';
  /** How the installed folder was made from the downloaded files, when not by unpacking alone. */
  build?: string;
  installedAt: string;
  /** sha256 of each installed file, relative to the model's folder. */
  files: Record<string, string>;
}

export type Lock = Record<string, LockEntry>;

export const lockPath = (modelsDir: string) => join(modelsDir, 'models.lock.json');
export const modelDir = (modelsDir: string, name: string) => join(modelsDir, name);

export function readLock(modelsDir: string): Lock {
  try {
    return JSON.parse(readFileSync(lockPath(modelsDir), 'utf8')) as Lock;
  } catch {
    return {};
  }
}

export function writeLock(modelsDir: string, lock: Lock): void {
  const tmp = `${lockPath(modelsDir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(lock, null, 2)}\n`);
  renameSync(tmp, lockPath(modelsDir));
}

export function isInstalled(modelsDir: string, m: ModelEntry): boolean {
  return existsSync(modelDir(modelsDir, m.name)) && readLock(modelsDir)[m.name] !== undefined;
}

export { sha256File };

export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export async function hashTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of listFiles(dir)) out[f] = await sha256File(join(dir, f));
  return out;
}

/**
 * The sha256 a PyPI install records: the publisher's file when the wheels carry exactly it,
 * unbuilt (as a publisher pull would record), else the one distribution's, or for several the
 * sha256 of their sha256s in catalogue order.
 */
export function pypiLockSha256(m: ModelEntry): string {
  const o = m.pypi;
  if (!o) throw new Error(`${m.name} has no PyPI origin`);
  const files = Object.values(o.files);
  if (!o.build && m.format === 'file' && m.sha256 && files.length === 1 && files[0]!.sha256 === m.sha256) return m.sha256;
  const shas = o.wheels.map((w) => w.sha256);
  return shas.length === 1 ? shas[0]! : createHash('sha256').update(shas.join('\n')).digest('hex');
}

export interface VerifyResult {
  name: string;
  ok: boolean;
  problems: string[];
}

/** Re-hashes the installed files and compares them with the lock (and the catalogue's checksum). */
export async function verifyModel(modelsDir: string, m: ModelEntry): Promise<VerifyResult> {
  const entry = readLock(modelsDir)[m.name];
  const dir = modelDir(modelsDir, m.name);
  if (!entry || !existsSync(dir)) return { name: m.name, ok: false, problems: ['not installed'] };
  const problems: string[] = [];
  if (entry.origin === 'pypi') {
    const pinned = m.pypi && pypiLockSha256(m);
    if (pinned && entry.sha256 !== pinned) problems.push(`PyPI distribution sha256 ${entry.sha256} is not the pinned ${pinned}`);
    // Files taken as they are or built by a Python recipe are pinned file by file (the Piper
    // build rewrites the files it took, which were checked before it did).
    if (m.pypi && m.pypi.build !== 'piper-to-sherpa')
      for (const [f, { sha256, formerSha256 = [] }] of Object.entries(m.pypi.files))
        if (entry.files[f] !== sha256 && !formerSha256.includes(entry.files[f] ?? ''))
          problems.push(`installed file ${f} is not the catalogue's ${sha256}`);
  } else if (m.sha256 && entry.sha256 !== m.sha256) problems.push(`download sha256 ${entry.sha256} is not the published ${m.sha256}`);
  const now = await hashTree(dir);
  for (const [f, h] of Object.entries(entry.files)) {
    if (!(f in now)) problems.push(`missing file ${f}`);
    else if (now[f] !== h) problems.push(`changed file ${f}`);
  }
  for (const f of Object.keys(now)) if (!(f in entry.files)) problems.push(`unexpected file ${f}`);
  return { name: m.name, ok: problems.length === 0, problems };
}

export function dirSizeBytes(dir: string): number {
  return listFiles(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}
