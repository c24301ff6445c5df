/**
 * `models pull`: download (or take a local archive for offline hosts), check the sha256
 * against the catalogue's published value or, when none is published, against the value
 * recorded at the first download (trust on first use), then extract into a staging folder
 * and rename it into place, so a failed or refused pull never leaves a half model behind.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { downloadName, downloadUrl, type ModelEntry } from './catalog.js';
import { type DownloadOptions, downloadToPart } from './download.js';
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
}

export interface PullResult {
  name: string;
  path: string;
  sha256: string;
  trust: LockEntry['trust'];
  /** True when this pull recorded the checksum (no published value, first install). */
  recorded: boolean;
}

export async function pullModel(modelsDir: string, m: ModelEntry, options: PullOptions = {}): Promise<PullResult> {
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

  const staging = stagingDir(modelsDir, m);
  try {
    if (m.format === 'tar.bz2') {
      await run('tar', ['-xjf', source, '-C', staging, '--strip-components=1', '--no-same-owner']);
    } else if (source === part) renameSync(part, join(staging, downloadName(m)));
    else copyFileSync(source, join(staging, downloadName(m)));
    const files = await hashTree(staging);
    if (!Object.keys(files).length) throw new Error(`${m.name}: the archive holds no files`);
    const path = placeStaged(modelsDir, m, staging, {
      sha256,
      trust,
      source: options.from ? `file:${options.from}` : downloadUrl(m, options.mirror),
      installedAt: new Date().toISOString(),
      files,
    });
    rmSync(part, { force: true });
    return { name: m.name, path, sha256, trust, recorded: !m.sha256 && !previous };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** A fresh, empty staging folder beside the models (same file system, so the final rename is atomic). */
export function stagingDir(modelsDir: string, m: ModelEntry): string {
  const staging = join(modelsDir, `.staging-${m.name}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  return staging;
}

/** Renames a complete staging folder into place and records it in models.lock.json. */
export function placeStaged(modelsDir: string, m: ModelEntry, staging: string, entry: LockEntry): string {
  const dest = modelDir(modelsDir, m.name);
  rmSync(dest, { recursive: true, force: true });
  renameSync(staging, dest);
  const lock = readLock(modelsDir);
  lock[m.name] = entry;
  writeLock(modelsDir, lock);
  return dest;
}
