/**
 * Imports across processes: an api-role app takes the upload and serves the progress stream,
 * a worker-role app (same PostgreSQL database, same Redis bus, same data directory for blobs)
 * runs the job; progress crosses Redis to the stream and the webhooks go out from the worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgSchema, dropPgSchema, startTestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { startReceiver } from '../webhooks/receiver.js';
import { builtinImportEngines, upload, watchSse } from './support.js';

const redisUrl = testRedisUrl();
const pg = process.env.DATABASE_URL;
const mp3 = haveSharedAudio() ? convert(JFK, 'mp3') : null;

describe.skipIf(!redisUrl || !pg || !mp3)('imports with api and worker in separate processes (PostgreSQL + Redis)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('upload on the api process, job on the worker, progress and webhooks arrive', async () => {
    const rx = await startReceiver();
    cleanup.push(() => rx.close());
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-split-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const api = await startTestApp({
      backend: 'postgres',
      env: { REDIS_URL: redisUrl!, PARLEY_ROLES: 'api' },
      reuse: { dataDir, pgSchema },
    });
    cleanup.push(() => api.close());
    const worker = await startTestApp({
      backend: 'postgres',
      env: { REDIS_URL: redisUrl!, PARLEY_ROLES: 'worker' },
      reuse: { dataDir, pgSchema },
      engines: await builtinImportEngines(),
    });
    cleanup.push(() => worker.close());

    const key = await api.app.deps.keys.createKey({ name: 'split' });
    await api.app.deps.billing.grantCredit({ accountId: key.account_id, points: 20, pool: 'account' });
    const res = await upload(api.url, key.api_key, { file: { path: mp3! }, fields: { callback_url: rx.url } });
    expect(res.status).toBe(202);
    const events = await watchSse(`${api.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': key.api_key }).done;
    expect(events.at(-1)!.event).toBe('completed');
    expect(events.some((e) => e.data.stage === 'transcribing')).toBe(true);
    await until(() => rx.received.filter((r) => r.json?.event === 'import.completed').length === 1, 15_000, 'import.completed');
    expect(rx.received.map((r) => r.json.event)).toEqual(['recording.completed', 'import.completed']);
  }, 120_000);
});
