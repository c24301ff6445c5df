/**
 * The walls between folders (issue 29): dependency-cruiser checks src/ against
 * .dependency-cruiser.cjs (mechanisms know no feature, engines know no feature/HTTP/store, a
 * feature uses only another feature's top-level modules and no concrete backend, no cycles).
 * The second test runs the same rules over a small tree that breaks each of them, so a rule
 * that stopped matching (a renamed folder, a broken pattern) fails here too.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const depcruise = join(root, 'node_modules/.bin/depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

async function violations(cwd: string): Promise<Violation[]> {
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const { stdout } = await run(depcruise, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
  }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  const report = JSON.parse(stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(report.summary.totalCruised).toBeGreaterThan(0);
  return report.summary.violations;
}

const describeRule = (v: Violation) =>
  `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`;

describe('dependency rules', () => {
  it('src/ breaks none of them', async () => {
    const found = await violations(root);
    expect(found.map(describeRule)).toEqual([]);
  }, 120_000);

  it('each rule catches what it forbids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-walls-'));
    try {
      await cp(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
      );
      const files: Record<string, string> = {
        'src/store/schema.ts': "import type { T } from '../tasks/tables.js';\nexport type S = T;\n",
        'src/tasks/tables.ts': 'export type T = number;\n',
        'src/platform/docs.ts': "import { c } from '../config.js';\nexport const d = c;\n",
        'src/config.ts': 'export const c = 1;\n',
        'src/engines/whisper.ts': "import { s } from '../tasks/service.js';\nexport const w = s;\n",
        'src/tasks/service.ts': "import { r } from '../tasks/speakers/rules.js';\nexport const s = r;\n",
        'src/tasks/speakers/rules.ts': 'export const r = 1;\n',
        'src/imports/pipeline.ts':
          "import { r } from '../tasks/speakers/rules.js';\nimport { q } from '../tasks/store.js';\nimport { b } from '../bus/redis.js';\nexport const p = [r, q, b];\n",
        'src/tasks/store.ts': 'export const q = 1;\n',
        'src/bus/redis.ts': 'export const b = 1;\n',
        'src/realtime/recording.ts': "import { h } from '../broadcasts/host.js';\nexport const x = h;\n",
        'src/broadcasts/host.ts': 'export const h = 1;\n',
        // Presence (issue 29): seats and audiences get the port; the mechanism knows no feature.
        'src/broadcasts/seats.ts': "import { p } from '../presence/redis.js';\nexport const s = p;\n",
        'src/presence/redis.ts': 'export const p = 1;\n',
        'src/presence/in-memory.ts': "import { h } from '../broadcasts/host.js';\nexport const m = h;\n",
        'src/keys/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/keys/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      };
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      const found = await violations(dir);
      const broken = new Set(found.map((v) => v.rule.name));
      // No feature file is excepted any more (the seats' and audiences' own Redis clients are gone).
      expect(found.map(describeRule)).toEqual(
        expect.arrayContaining([
          'feature-imports-concrete-backend: src/broadcasts/seats.ts -> src/presence/redis.ts',
          'mechanism-imports-feature: src/presence/in-memory.ts -> src/broadcasts/host.ts',
        ]),
      );
      expect([...broken].sort()).toEqual(
        [
          'engine-imports-feature-http-or-store',
          'feature-imports-concrete-backend',
          'feature-imports-feature-internals',
          'feature-uses-feature-sql',
          'live-session-imports-audience',
          'mechanism-imports-composition',
          'mechanism-imports-feature',
          'no-circular',
        ].sort(),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
