/**
 * Temporary engine errors: a remote (OpenAI-compatible) recognizer that answers 503 is retried
 * by the job queue while the import stays `processing`, and the import completes once the
 * engine recovers; when every attempt fails, the import fails once with the engine's code.
 * A diarizer that throws fails a multi_speaker import with diarization_failed.
 * The remote side is the local OpenAI-compatible test server (the real remote cannot run here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranscriptionFactory } from '../../src/engines/remote/openai-transcription.js';
import type { AnyEngine, Diarizer } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { upload, watchSse } from './support.js';

const mp3 = haveSharedAudio() ? convert(JFK, 'mp3') : null;

describe.skipIf(!mp3)('import retries on temporary engine errors', () => {
  let remote: OpenAiServer;
  let t: TestApp;
  beforeAll(async () => {
    remote = await startOpenAiServer();
    remote.transcript = 'ask what you can do for your country';
    const config = loadConfig({ PARLEY_REMOTE_STT_URL: remote.url, PARLEY_REMOTE_RETRIES: '0' });
    const stt = await openAiTranscriptionFactory.create({ config, modelsDir: '/nowhere', logger: createLogger('silent') } as never);
    if ('unavailable' in stt) throw new Error(stt.unavailable);
    t = await startTestApp({
      engines: EngineRegistry.fromEngines([stt as AnyEngine]),
      env: { PARLEY_IMPORT_ATTEMPTS: '3', PARLEY_IMPORT_RETRY_DELAY_MS: '50' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await remote?.close();
  });

  async function run() {
    const key = await t.app.deps.keys.createKey({ name: 'k' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
    const res = await upload(t.url, key.api_key, { file: { path: mp3! } });
    expect(res.status).toBe(202);
    const events = await watchSse(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': key.api_key }).done;
    return { key, id: res.body.data.import_id as string, events };
  }

  it('two 503s, then success: still processing in between, then completed with the remote transcript', async () => {
    remote.script.push({ status: 503 }, { status: 503 });
    const { key, events } = await run();
    expect(events.at(-1)!.event).toBe('completed');
    expect(events.filter((e) => e.event === 'failed')).toEqual([]);
    expect(events.filter((e) => e.event === 'progress').every((e) => e.data.status === 'processing' || e.data.status === 'pending')).toBe(
      true,
    );
    expect(events.some((e) => /retrying/i.test(e.data.message ?? ''))).toBe(true);
    const tasks = await api(t.url, 'GET', '/api/v1/tasks', { key: key.api_key });
    const history = await fetch(`${t.url}/api/v1/sse/history/transcribe/${tasks.body.data.tasks[0].task_id}?api_key=${key.api_key}`).then(
      (r) => r.text(),
    );
    expect(history).toContain('country');
  });

  it('503 on every attempt: the import fails once with the engine code, not charged', async () => {
    remote.script.push({ status: 503 }, { status: 503 }, { status: 503 });
    const { key, id, events } = await run();
    expect(events.filter((e) => e.event === 'failed')).toHaveLength(1);
    const got = await api(t.url, 'GET', `/api/v1/imports/${id}`, { key: key.api_key });
    expect(got.body.data.status).toBe('failed');
    expect(got.body.data.error_code).toMatch(/^stt_/);
    expect((await api(t.url, 'GET', '/api/v1/me/usage', { key: key.api_key })).body.data).toEqual([]);
  });
});

describe.skipIf(!mp3)('import with a diarizer that fails', () => {
  let t: TestApp;
  beforeAll(async () => {
    const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
    const stt = await pocketsphinxFileFactory.create(ctx as never);
    if ('unavailable' in stt) throw new Error(stt.unavailable);
    // A test double: the classic diarizer does not fail on demand.
    const broken = {
      id: 'test/broken-diarizer',
      kind: 'diarizer',
      tier: 'builtin',
      capabilities: { languages: ['*'], diarization: true },
      diarize: () => Promise.reject(new Error('speaker model exploded')),
    } as Diarizer;
    t = await startTestApp({ engines: EngineRegistry.fromEngines([stt as AnyEngine, broken]) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('multi_speaker: the import fails once with diarization_failed and is not charged', async () => {
    const key = await t.app.deps.keys.createKey({ name: 'k' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
    const res = await upload(t.url, key.api_key, { file: { path: mp3! }, fields: { recognition_mode: 'multi_speaker' } });
    expect(res.status).toBe(202);
    const id = res.body.data.import_id as string;
    const events = await watchSse(`${t.url}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key.api_key }).done;
    expect(events.filter((e) => e.event === 'failed').map((e) => e.data.error_code)).toEqual(['diarization_failed']);
    const got = await api(t.url, 'GET', `/api/v1/imports/${id}`, { key: key.api_key });
    expect(got.body.data).toMatchObject({ status: 'failed', error_code: 'diarization_failed' });
    expect((await api(t.url, 'GET', '/api/v1/me/usage', { key: key.api_key })).body.data).toEqual([]);
  });
});
