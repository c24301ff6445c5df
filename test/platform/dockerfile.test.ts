/**
 * The Dockerfile and deploy/compose.yaml agree with the project (no Docker engine runs in CI,
 * so this checks the text; hadolint lints the file where it is installed): compose builds the
 * repository's Dockerfile, the Dockerfile builds with the project's own setup script and starts
 * the service as `npm start` does, on the Node major of .nvmrc, and the build context keeps
 * every file setup and the service need.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('Dockerfile and compose', () => {
  const dockerfile = read('Dockerfile');

  it('compose builds the repository Dockerfile for every Parley role', () => {
    const compose = read('deploy/compose.yaml');
    expect(compose).toMatch(/^x-parley: &parley\n {2}image: parley:latest\n {2}build: \{ context: \.\., dockerfile: Dockerfile \}$/m);
    for (const role of ['api', 'realtime', 'worker']) expect(compose).toMatch(new RegExp(`^ {2}${role}:\\n {4}<<: \\*parley$`, 'm'));
    expect(existsSync(join(ROOT, 'deploy', '..', 'Dockerfile'))).toBe(true);
  });

  it('builds with scripts/setup.sh and starts as npm start does, on the Node of .nvmrc', () => {
    expect(dockerfile).toMatch(/^RUN PARLEY_WHISPER="\$PARLEY_WHISPER" bash scripts\/setup\.sh/m);
    // npm start bundles the sources, then runs the bundle; the image's setup built the bundle.
    const start = JSON.parse(read('package.json')).scripts.start as string;
    const [, build, run] = /^(node scripts\/build-server\.mjs --quiet) && exec (.+)$/.exec(start) ?? [];
    expect(build, start).toBeDefined();
    expect(read('scripts/setup.sh')).toMatch(/^node scripts\/build-server\.mjs$/m);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(cmd.join(' ')).toBe(run);
    const nodeMajor = read('.nvmrc').trim();
    expect(dockerfile).toMatch(new RegExp(`^FROM node:${nodeMajor}-bookworm-slim$`, 'm'));
    expect(process.versions.node.split('.')[0]).toBe(nodeMajor);
  });

  it('the build context keeps what setup and the service read', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    for (const needed of ['src', 'scripts', 'engine-host', 'web', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      expect(ignored, needed).not.toContain(needed);
    }
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'data', '.venv', '.git']));
  });

  const hadolint = spawnSync('hadolint', ['--version']).status === 0;
  it.skipIf(!hadolint)('hadolint finds nothing (where hadolint is installed)', () => {
    const r = spawnSync('hadolint', ['--failure-threshold', 'info', join(ROOT, 'Dockerfile')], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
