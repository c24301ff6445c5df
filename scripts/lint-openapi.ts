/** Redocly lint (redocly.yaml: recommended rules) of the OpenAPI document a server serves. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedOpenApi } from './served-openapi.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-openapi-lint-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await servedOpenApi()));
  const r = spawnSync('npx', ['redocly', 'lint', file, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
