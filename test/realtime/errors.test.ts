/**
 * Error codes of live sessions not provoked by the other suites, each by a real cause: broken
 * audio, a failing key or ticket store, refused keys at connect, a translation and summary
 * service that fails or filters (a local OpenAI-compatible server), credit that covers the
 * minutes but not the summary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranslatorFactory } from '../../src/engines/remote/openai-translator.js';
import { llmSummarizerFactory } from '../../src/engines/summary/factory.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { backends, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import {
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  startLiveApp,
  startSession,
  streamPcm,
  ticketAndKey,
  ticketFor,
  vt,
  waitFor,
} from './support.js';

const haveAudio = existsSync(JFK);

describe.each(backends())('live session errors (%s)', (backend) => {
  let t: TestApp;
  let llm: OpenAiServer;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    // PocketSphinx for speech; translation and summaries through the OpenAI-compatible server.
    const ctx = {
      config: loadConfig({ PARLEY_REMOTE_LLM_URL: llm.url, PARLEY_REMOTE_RETRIES: '0' }),
      modelsDir: '/nowhere',
      logger: createLogger('silent'),
    };
    const engines: AnyEngine[] = [];
    for (const f of [pocketsphinxStreamingFactory, openAiTranslatorFactory, llmSummarizerFactory]) {
      const e = await f.create(ctx as never);
      if ('unavailable' in e) throw new Error(`${f.id}: ${e.unavailable}`);
      engines.push(e as AnyEngine);
    }
    t = await startLiveApp(backend, { engines: EngineRegistry.fromEngines(engines) });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('audio: audio_format_unsupported at start, audio_invalid_format for bad base64 or a container in a pcm session', async () => {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], audio_format: 'mp3' }));
    expect((await cl.next()).data).toMatchObject({
      error_code: 'audio_format_unsupported',
      details: { field: 'audio_format', valid_values: ['pcm', 'webm'] },
    });
    await startSession(cl, {});
    cl.send(vt('audio', { audio: 'this is not base64!' }));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'audio_invalid_format',
      details: { field: 'audio' },
    });
    cl.send(vt('audio', { audio: 42 }));
    expect((await cl.next((m) => m.type === 'error')).data.error_code).toBe('audio_invalid_format');
    cl.ws.send(Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(400)]));
    expect((await cl.next((m) => m.type === 'error')).data).toMatchObject({
      error_code: 'audio_invalid_format',
      severity: 'error',
      details: { detected: 'webm', audio_format: 'pcm' },
    });
    cl.send(vt('stop'));
    // The refused chunks were not recorded: no audio at all.
    expect((await event(cl, 'task_complete', 20_000)).data).toMatchObject({ status: 'failed', duration_ms: 0 });
    cl.ws.close();
  }, 30_000);

  it.skipIf(!haveAudio)(
    'audio_decode_failed keeps the recording: a broken WebM container, then a fresh one',
    async () => {
      const webm = execFileSync('ffmpeg', ['-v', 'error', '-t', '2', '-i', JFK, '-c:a', 'libopus', '-f', 'webm', 'pipe:1'], {
        maxBuffer: 16 << 20,
      });
      const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
      await startSession(cl, { audio_format: 'webm' });
      // A broken container: the EBML magic, then no valid header.
      cl.ws.send(Buffer.concat([webm.subarray(0, 4), Buffer.alloc(20_000, 0xff)]));
      const err = await errorWith(cl, 'audio_decode_failed', 10_000);
      expect(err.data).toMatchObject({ severity: 'error' });
      for (let i = 0; i < webm.length; i += 4000) cl.ws.send(webm.subarray(i, i + 4000));
      await new Promise((r) => setTimeout(r, 1000));
      cl.send(vt('stop'));
      const done = await event(cl, 'task_complete', 30_000);
      expect(done.data.status).toBe('completed');
      expect(done.data.duration_ms).toBeGreaterThan(1500);
      cl.ws.close();
    },
    60_000,
  );

  it('auth_service_error at start and ticket_validation_failed at connect when their stores fail', async () => {
    const db = t.app.deps.database.db;
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    await sql`alter table api_keys rename to api_keys_offline`.execute(db);
    try {
      cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
      expect((await cl.next()).data).toMatchObject({ error_code: 'auth_service_error', severity: 'fatal' });
    } finally {
      await sql`alter table api_keys_offline rename to api_keys`.execute(db);
    }
    // The connection stays; with the store back the start works.
    await startSession(cl, {});
    cl.ws.close();

    const ticket = await ticketFor(t);
    await sql`alter table tickets rename to tickets_offline`.execute(db);
    try {
      const refused = await connect(t, [`ticket.${ticket}`]);
      expect((await refused.next()).data).toMatchObject({ error_code: 'ticket_validation_failed', severity: 'fatal' });
      expect((await refused.closed).code).toBe(4001);
    } finally {
      await sql`alter table tickets_offline rename to tickets`.execute(db);
    }
  }, 30_000);

  it('a key refused at connect closes with 4003: blocked account, disabled user, expired key, deleted key', async () => {
    const keys = t.app.deps.keys;
    const cases: [string, (k: { keyId: string; accountId: string }) => Promise<unknown>][] = [
      ['auth_account_blocked', (k) => keys.setAccountFlags(k.accountId, { blocked: true })],
      ['auth_user_disabled', (k) => keys.setAccountFlags(k.accountId, { userDisabled: true })],
      ['auth_key_expired', (k) => keys.updateKey(k.keyId, { expiresAt: new Date(Date.now() - 1000).toISOString() })],
      ['auth_key_disabled', (k) => keys.updateKey(k.keyId, { disabled: true })],
      ['auth_invalid_api_key', (k) => keys.deleteKey(k.keyId)],
    ];
    for (const [code, apply] of cases) {
      const k = await ticketAndKey(t);
      await apply(k);
      const cl = await connect(t, [`ticket.${k.ticket}`]);
      expect((await cl.next()).data, code).toMatchObject({ error_code: code, severity: 'fatal' });
      expect((await cl.closed).code, code).toBe(4003);
    }
  }, 30_000);

  it.skipIf(!haveAudio)(
    'translation_failed per sentence (with sid), translation_service_unavailable after three in a row; llm_content_filtered summary',
    async () => {
      const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
      await startSession(cl, { translation_languages: ['es'], summary_template: 'general-summary' });
      llm.script.push(...Array.from({ length: 40 }, () => ({ status: 500 })));
      await streamPcm(cl, jfkPcm().subarray(0, 32_000 * 5), 2);
      const first = await errorWith(cl, 'translation_failed', 20_000);
      expect(first.data).toMatchObject({ severity: 'error', details: { translation_language: 'es' } });
      expect(Number.isInteger(first.data.sid)).toBe(true);
      // Retranslating the same sentence fails again: the third failure in a row is session-level.
      for (let i = 0; i < 2; i++) {
        cl.send(vt('retranslate', { sid: first.data.sid }));
        await event(cl, 'retranslate_done', 10_000);
      }
      await waitFor(cl, (ms) => ms.some((m) => m.data?.error_code === 'translation_service_unavailable'), 10_000);
      const unavailable = cl.messages.find((m) => m.data?.error_code === 'translation_service_unavailable')!;
      expect(unavailable.data).toMatchObject({
        severity: 'error',
        details: { provider: 'remote/openai-translator', last_error_code: 'translation_failed', fail_count: 3 },
      });
      expect(unavailable.data.sid).toBeUndefined();
      // Every prompt is refused now: the summary cannot be made by any path.
      llm.script.length = 0;
      llm.filterWords = [''];
      cl.send(vt('stop'));
      const done = await event(cl, 'task_complete', 60_000);
      llm.filterWords = ['FORBIDDEN'];
      expect(done.data.status).toBe('completed');
      const summaryError = cl.messages.find((m) => m.data?.action === 'summary_error');
      expect(summaryError?.data).toMatchObject({ task_id: done.data.task_id, error_code: 'llm_content_filtered' });
      expect(cl.messages.indexOf(summaryError!)).toBeLessThan(cl.messages.indexOf(done));
      cl.ws.close();
    },
    90_000,
  );

  it.skipIf(!haveAudio)(
    'summary_insufficient_credit when the credit covered the minutes but not the summary',
    async () => {
      const { ticket, keyId } = await ticketAndKey(t);
      await t.app.deps.keys.updateKey(keyId, { monthlySpendLimit: t.app.deps.billing.prices.recordingMinute() });
      const cl = await connect(t, [`ticket.${ticket}`]);
      await startSession(cl, { summary_template: 'general-summary' });
      await streamPcm(cl, jfkPcm().subarray(0, 32_000 * 4), 2);
      cl.send(vt('stop'));
      const done = await event(cl, 'task_complete', 60_000);
      expect(done.data.status).toBe('completed');
      const summaryError = cl.messages.find((m) => m.data?.action === 'summary_error');
      expect(summaryError?.data).toMatchObject({ task_id: done.data.task_id, error_code: 'summary_insufficient_credit' });
      expect(cl.messages.some((m) => m.data?.action === 'summary_done')).toBe(false);
      cl.ws.close();
    },
    60_000,
  );
});
