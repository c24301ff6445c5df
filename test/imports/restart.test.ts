/**
 * A kill -9 of the server while an import is `transcribing`, then a restart on the same data:
 * the import ends exactly once (completed here), with at most one usage row, one webhook of
 * each event, and no temporary file left. The server runs as a real child process (the
 * README's start command), so the kill is a real SIGKILL.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { firstStartKey, localServerEnv, startServer } from '../support/server.js';
import { until } from '../support/until.js';
import { startReceiver } from '../webhooks/receiver.js';
import { upload, watchSse } from './support.js';

// About 66 s of real speech: long enough to be caught while transcribing.
const long = haveSharedAudio() ? convert(JFK, 'mp3', ['-filter_complex', 'aloop=loop=5:size=2e6', '-ar', '16000', '-ac', '1']) : null;

describe.skipIf(!long)('import across a kill -9 and a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-restart-'));
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes and completes exactly once: one charge, one webhook per event, no temp files', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const { base, env } = await localServerEnv(dataDir, { PARLEY_WEBHOOK_ALLOW_PRIVATE: '1', PARLEY_JOB_LEASE_MS: '1500' });
    const first = startServer(env);
    cleanup.push(() => first.child.kill('SIGKILL'));
    await first.ready;
    const key = firstStartKey(first);

    const res = await upload(base, key, { file: { path: long! }, fields: { callback_url: rx.url, translation_languages: '["es"]' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.data.import_id as string;
    const watch = watchSse(`${base}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key });
    await until(() => watch.events.some((e) => e.data.stage === 'transcribing'), 60_000, 'transcribing');
    first.child.kill('SIGKILL');
    watch.close();
    await watch.done.catch(() => {});
    await first.exited;

    const second = startServer(env);
    cleanup.push(() => second.child.kill('SIGTERM'));
    await second.ready;
    await until(
      async () => ['completed', 'failed'].includes((await api(base, 'GET', `/api/v1/imports/${id}`, { key })).body.data.status),
      120_000,
      'import to end',
    );
    const end = (await api(base, 'GET', `/api/v1/imports/${id}`, { key })).body.data;
    expect(end.status, JSON.stringify(end)).toBe('completed');
    await until(() => rx.received.filter((r) => r.json?.event === 'import.completed').length >= 1, 20_000, 'import.completed');
    await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive by now
    const events = rx.received.map((r) => r.json.event);
    expect(events.filter((e) => e === 'recording.completed')).toHaveLength(1);
    expect(events.filter((e) => e === 'import.completed')).toHaveLength(1);
    expect(events).not.toContain('import.failed');
    const usage = (await api(base, 'GET', '/api/v1/me/usage', { key })).body.data as { type: string; points: number }[];
    expect(usage.filter((u) => u.type === 'import')).toHaveLength(1);
    const tmp = join(dataDir, 'tmp', 'imports');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  }, 300_000);
});
