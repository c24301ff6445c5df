/**
 * Shutdown always ends (issue 19), with real processes: the server started as the README
 * says (`node dist/main.mjs`, the bundle `npm start` runs) and signalled like a supervisor does.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localServerEnv, type ServerProcess, startServer } from '../support/server.js';

const started: ServerProcess[] = [];
const orphans: number[] = [];

/** Whether a process that is not our child still runs (a zombie waiting for its reaper has ended). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const pid of orphans.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const s of started.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

async function server(extra: Record<string, string>) {
  const { env, base, port } = await localServerEnv(mkdtempSync(join(tmpdir(), 'parley-shutdown-')), { LOG_LEVEL: 'info', ...extra });
  const s = startServer(env);
  started.push(s);
  await s.ready;
  return { s, base, port };
}

/** A request whose headers never finish: the graceful close waits for it. */
async function hangingRequest(port: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /api/v1/version HTTP/1.1\r\nHost: localhost\r\n');
  socket.on('error', () => {});
}

async function waitForOutput(s: ServerProcess, text: string): Promise<void> {
  while (!s.output().includes(text)) {
    if (s.child.exitCode !== null) throw new Error(`exited before "${text}":\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Each test starts a real server (engines load first): generous under a loaded CI machine.
describe('shutdown', { timeout: 120_000 }, () => {
  it('ends on SIGTERM after the parent that piped its stdout and stderr went away (EPIPE on every write)', async () => {
    const { env, port } = await localServerEnv(mkdtempSync(join(tmpdir(), 'parley-shutdown-')), {
      LOG_LEVEL: 'info',
      PARLEY_SHUTDOWN_GRACE_MS: '3000',
    });
    // The parent: starts the server with its output piped, prints its pid once it listens, exits.
    const parent = spawn(process.execPath, [join(import.meta.dirname, '..', 'support', 'piping-parent.mjs')], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let parentOut = '';
    parent.stdout.on('data', (d: Buffer) => {
      parentOut += d.toString();
    });
    await new Promise<void>((r) => parent.once('exit', () => r()));
    const pid = Number(/pid (\d+)/.exec(parentOut)?.[1]);
    expect(pid).toBeGreaterThan(0);
    orphans.push(pid);
    // Still serving (its banner went into the broken pipe); the first log line that meets the
    // broken pipe is the shutdown's own (what hung it before issue 19).
    // (A TCP connect shows it listens without a request, which would log.)
    const probe = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => probe.once('connect', () => resolve()).once('error', reject));
    probe.destroy();
    process.kill(pid, 'SIGTERM');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 100));
  });

  it('ends with 1 when the grace period is over and a request still has not finished', async () => {
    const { s, port } = await server({ PARLEY_SHUTDOWN_GRACE_MS: '1500' });
    await hangingRequest(port);
    s.child.kill('SIGTERM');
    await s.exited;
    expect(s.child.exitCode).toBe(1);
    expect(s.output()).toContain('shutdown grace period over');
  });

  it('a second SIGTERM ends it at once, without waiting for the grace period', async () => {
    // A grace period longer than the test's timeout: only the second signal can end it in time.
    const { s, port } = await server({ PARLEY_SHUTDOWN_GRACE_MS: '600000' });
    await hangingRequest(port);
    s.child.kill('SIGTERM');
    await waitForOutput(s, 'shutting down');
    s.child.kill('SIGTERM');
    await s.exited;
    expect(s.child.exitCode).toBe(1);
    expect(s.output()).toContain('second signal');
  });

  it('a main thread stuck in an exit handler after the grace period is killed by the watchdog thread', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'support', 'shutdown-child.ts')], {
      env: { ...process.env, GRACE_MS: '500' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
    child.stdout.destroy();
    child.stderr.destroy();
    child.kill('SIGTERM');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
  });
});
