/**
 * The import progress stream's guarantees, with no worker running (an api-only process on
 * Redis), so the test alone moves the import: progress from the bus is forwarded, never
 * backwards; a final state the bus never announced (a lost message) still ends the stream,
 * found when the import is read again at the next heartbeat (15 s).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { progressTopic } from '../../src/bus/topics.js';
import { ImportStore } from '../../src/imports/store.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { upload, watchSse } from './support.js';

const redisUrl = testRedisUrl();
const mp3 = haveSharedAudio() ? convert(JFK, 'mp3') : null;

describe.skipIf(!redisUrl || !mp3)('import progress stream (api process, no worker, Redis bus)', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('forwards bus progress, never backwards; ends on a final state the bus lost, at the next heartbeat', async () => {
    t = await startTestApp({ env: { REDIS_URL: redisUrl!, PARLEY_ROLES: 'api' } });
    const key = await t.app.deps.keys.createKey({ name: 'progress' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 20, pool: 'account' });
    const res = await upload(t.url, key.api_key, { file: { path: mp3! } });
    expect(res.status).toBe(202);
    const id = res.body.data.import_id as string;
    const sse = watchSse(`${t.url}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key.api_key });
    await until(() => sse.events.length === 1, 10_000, 'the first event');
    expect(sse.events[0]).toMatchObject({ event: 'progress', data: { import_id: id, status: 'pending', progress: 0 } });

    const progress = (percent: number) => ({
      event: 'progress' as const,
      data: { import_id: id, status: 'processing' as const, stage: 'transcribing' as const, progress: percent, message: `at ${percent}` },
    });
    await t.app.deps.bus.publish(progressTopic(id), progress(40));
    await until(() => sse.events.length === 2, 10_000, 'progress 40');
    await t.app.deps.bus.publish(progressTopic(id), progress(20)); // a retry's window: not sent
    await t.app.deps.bus.publish(progressTopic(id), progress(45));
    await until(() => sse.events.length === 3, 10_000, 'progress 45');

    // The import fails and the bus never says so: the stream still ends with `failed`.
    expect(await new ImportStore(t.app.deps.database, t.app.deps.now).fail(id, 'internal_error', 'Lost on the bus.')).toBe(true);
    const events = await sse.done;
    expect(events.map((e) => [e.event, e.data.progress ?? e.data.error_code])).toEqual([
      ['progress', 0],
      ['progress', 40],
      ['progress', 45],
      ['failed', 'internal_error'],
    ]);
  }, 60_000);
});
