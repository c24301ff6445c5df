/**
 * Issue 26, finding 2: while a long import is recognized, the server keeps answering. The
 * file VAD ran synchronously over each ten-minute window (about 8 ms of work per second of
 * audio), so GET /api/v1/version went unanswered for seconds per window (minutes for the
 * lying 1 Hz WAV). A real server process (the README's start), a real 20-minute file, a real
 * client timing every answer; afterwards no temporary file is left on disk.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { firstStartKey, localServerEnv, type ServerProcess, startServer } from '../support/server.js';
import { upload } from './support.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-eventloop-'));
let server: ServerProcess | undefined;
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

it('GET /api/v1/version answers within 1 s throughout a 20-minute import, and the import leaves no temporary file', async () => {
  const file = join(dataDir, 'twenty-minutes.mp3');
  execFileSync('ffmpeg', [
    ...[
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'anoisesrc=color=pink:sample_rate=16000:amplitude=0.2:duration=1200',
    ],
    ...['-ac', '1', '-b:a', '24k', file],
  ]);
  const { base, env } = await localServerEnv(join(dataDir, 'data'), { PARLEY_STARTER_CREDIT: '100' });
  server = startServer(env);
  await server.ready;
  const key = firstStartKey(server);
  const res = await upload(base, key, { file: { bytes: readFileSync(file), name: 'twenty-minutes.mp3' } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = res.body.data.import_id as string;

  let worst = 0;
  let status = 'pending';
  for (const end = Date.now() + 150_000; Date.now() < end && status !== 'completed' && status !== 'failed'; ) {
    const started = performance.now();
    const version = await fetch(`${base}/api/v1/version`, { signal: AbortSignal.timeout(60_000) });
    worst = Math.max(worst, performance.now() - started);
    expect(version.status).toBe(200);
    const imp = await fetch(`${base}/api/v1/imports/${id}`, { headers: { 'x-api-key': key } }).then(
      (r) => r.json() as Promise<{ data: { status: string } }>,
    );
    status = imp.data.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe('completed');
  expect(worst, `slowest /api/v1/version: ${Math.round(worst)} ms`).toBeLessThan(1000);
  const tmp = join(dataDir, 'data', 'tmp', 'imports');
  expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
}, 240_000);
