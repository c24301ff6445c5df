/**
 * One node of several processes (`npm run start:node -- --processes N`, src/node.ts): refused
 * without Redis (the processes could not share viewers), and with Redis N processes answer on
 * one port, one that dies is replaced, and SIGTERM ends them all.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processesOf } from '../../src/node.js';
import { localServerEnv } from '../support/server.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const redisUrl = testRedisUrl();

function startNode(env: Record<string, string>, args: string[]) {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, output: () => out };
}

/** The pids of a process's children (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

describe('a node of several processes', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('--processes: a whole number from 1 to 256, the cores by default', () => {
    expect(processesOf(['node', 'x'], 2)).toBe(2);
    expect(processesOf(['node', 'x', '--processes', '3'], 2)).toBe(3);
    expect(processesOf(['node', 'x', '--processes', '0'], 2)).toMatch(/--processes must be/);
    expect(processesOf(['node', 'x', '--processes', 'two'], 2)).toMatch(/--processes must be/);
  });

  it('several processes without REDIS_URL: refused at start with exit status 2 and the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-node-'));
    dirs.push(dir);
    const { env } = await localServerEnv(dir);
    const node = startNode(env, ['--processes', '2']);
    expect(await node.exited).toBe(2);
    expect(node.output()).toMatch(/REDIS_URL/);
  });

  it.skipIf(!redisUrl)(
    'with Redis: N processes serve one port, a killed one is replaced, SIGTERM ends the node',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-node-'));
      dirs.push(dir);
      const { env, base } = await localServerEnv(dir, { REDIS_URL: redisUrl!, PARLEY_JOB_QUEUE_PREFIX: `parley-test:${dir}` });
      const node = startNode(env, ['--processes', '2']);
      try {
        const pid = node.child.pid!;
        const answering = (what: string) =>
          until(
            () =>
              fetch(`${base}/api/v1/version`).then(
                (r) => r.ok,
                () => false,
              ),
            60_000,
            what,
            200,
          );
        await until(() => childrenOf(pid).length === 2, 60_000, 'two processes', 200);
        await answering('an answer');
        // Many requests land on both processes (handed out in turn): each answers.
        const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${base}/api/v1/version`).then((r) => r.status)));
        expect(answers.every((s) => s === 200)).toBe(true);
        const [victim] = childrenOf(pid);
        process.kill(victim!, 'SIGKILL');
        await until(
          () => {
            const now = childrenOf(pid);
            return now.length === 2 && !now.includes(victim!);
          },
          60_000,
          'the killed process replaced',
          200,
        );
        await answering('an answer after the restart');
        node.child.kill('SIGTERM');
        expect(await node.exited).toBe(0);
      } finally {
        node.child.kill('SIGKILL');
      }
    },
    180_000,
  );
});
