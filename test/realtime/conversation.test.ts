/**
 * Conversation recordings over a real WebSocket: English (built-in PocketSphinx) and Spanish
 * (the remote tier's streaming face against the local OpenAI-compatible server, which "hears"
 * a scripted Spanish sentence), Apertium both ways. Each side's finals carry its speaker and are
 * translated into the other side's language; the speaker codes and mode rules are provoked.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranscriptionFactory } from '../../src/engines/remote/openai-transcription.js';
import { liveFromFileFactory } from '../../src/engines/streaming/factory.js';
import { createLogger } from '../../src/platform/logging.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { type Client, connect, errorWith, event, JFK, jfkPcm, type Msg, streamPcm, ticketAndKey, vt } from './support.js';

const SPANISH = 'hola amigos buenos días';

describe.skipIf(!existsSync(JFK)).each(backends())('conversation recordings (WebSocket, %s)', (backend) => {
  let server: OpenAiServer;
  let t: TestApp;
  beforeAll(async () => {
    server = await startOpenAiServer();
    server.transcript = SPANISH;
    // Built-in first: English goes to PocketSphinx, Spanish (no built-in recognizer) to the remote tier.
    const config = loadConfig({ PARLEY_REMOTE_STT_URL: server.url, PARLEY_ENGINE_TIERS: 'builtin,neural,remote' });
    const ctx = { config, modelsDir: '/nowhere', logger: createLogger('silent') };
    const engines = await EngineRegistry.create(ctx, [
      pocketsphinxStreamingFactory,
      apertiumFactory,
      openAiTranscriptionFactory,
      sileroVadFactory,
      liveFromFileFactory,
    ]);
    // PostgreSQL runs with Redis (bus, rate limits) when REDIS_URL is set, as startLiveApp does.
    const redis: Record<string, string> = backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
    t = await startTestApp({ engines, backend, env: redis });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  const open = async () => {
    const k = await ticketAndKey(t);
    return { ...k, cl: await connect(t, [`ticket.${k.ticket}`]) };
  };
  const start = async (cl: Client, data: Record<string, unknown>) => {
    cl.send(vt('start', { type: 'conversation', ...data }));
    return cl.next((m) => m.data?.action === 'session_started' || m.type === 'error', 15_000);
  };

  it('start: speakers exactly 2, languages translatable both ways, no translation_languages, auto refused', async () => {
    const { cl } = await open();
    const speakers = (n: number) => Array.from({ length: n }, () => ({ language: 'en' }));
    expect((await start(cl, { speakers: speakers(3) })).data).toMatchObject({
      error_code: 'conversation_invalid_speaker',
      details: { field: 'speakers', received: 3 },
    });
    expect((await start(cl, { transcription_languages: ['en'] })).data).toMatchObject({
      error_code: 'conversation_invalid_speaker',
      details: { field: 'transcription_languages', received: 1 },
    });
    expect((await start(cl, { transcription_languages: ['en', 'es'], translation_languages: ['es'] })).data).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'translation_languages' },
    });
    expect((await start(cl, { transcription_languages: ['en', 'es'], conversation_mode: 'auto' })).data).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'conversation_mode', valid_values: ['manual'], missing: ['spoken-language-id'] },
    });
    expect((await start(cl, { transcription_languages: ['en', 'es'], conversation_mode: 'both' })).data).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'conversation_mode', valid_values: ['manual', 'auto'] },
    });
    cl.ws.close();
  }, 30_000);

  it('each side is translated into the other side’s language; speaker actions and codes', async () => {
    const { cl, key } = await open();
    const started = await start(cl, {
      speakers: [
        { language: 'en', label: 'Ann' },
        { language: 'es', label: 'Bea' },
      ],
    });
    expect(started.data).toMatchObject({ action: 'session_started', recording_type: 'conversation' });
    const taskId = started.data.task_id as string;

    cl.send(vt('start_speaking', { speaker_id: '3' }));
    expect((await errorWith(cl, 'conversation_invalid_speaker')).data.details).toMatchObject({
      field: 'speaker_id',
      action: 'start_speaking',
    });
    cl.send(vt('switch_conversation_mode', { conversation_mode: 'auto' }));
    expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({
      action: 'switch_conversation_mode',
      valid_values: ['manual'],
    });
    cl.send(vt('set_speaker_language', { speaker_id: '2', language: 'xx' }));
    expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({ action: 'set_speaker_language', field: 'language' });

    const speech = Buffer.concat([jfkPcm().subarray(0, 4 * 32_000), Buffer.alloc(32_000)]);
    cl.send(vt('start_speaking', { speaker_id: 1 }));
    expect((await event(cl, 'status')).data).toMatchObject({ status: 'speaking', speaker_id: '1', language: 'en', active_language: 'en' });
    await streamPcm(cl, speech, 2);
    cl.send(vt('start_speaking', { speaker_id: '2' }));
    expect((await cl.next((m) => m.data?.action === 'status' && m.data.speaker_id === '2', 30_000)).data).toMatchObject({
      status: 'speaking',
      language: 'es',
      active_language: 'es',
    });
    await streamPcm(cl, speech, 2);
    cl.send(vt('stop_speaking'));
    await cl.next((m) => m.data?.action === 'status' && m.data.status === 'listening', 60_000);
    cl.send(vt('stop'));
    const done = await cl.next((m) => m.data?.action === 'task_complete', 120_000);
    expect(done.data).toMatchObject({ task_id: taskId, status: 'completed' });

    const finals = cl.messages.filter((m: Msg) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    const english = finals.filter((f) => f.speaker_id === '1');
    const spanish = finals.filter((f) => f.speaker_id === '2');
    expect(english.length).toBeGreaterThan(0);
    expect(spanish.length).toBeGreaterThan(0);
    expect(english.every((f) => f.language === 'en')).toBe(true);
    expect(spanish.every((f) => f.language === 'es')).toBe(true);
    expect(spanish.map((f) => f.text.toLowerCase()).join(' ')).toContain('amigos');
    const translations = cl.messages.filter((m) => m.data?.action === 'translation').map((m) => m.data);
    // Speaker 1 (English) into Spanish, speaker 2 (Spanish) into English, each sentence once.
    for (const f of english) expect(translations.filter((tr) => tr.sid === f.sid).map((tr) => tr.language)).toEqual(['es']);
    for (const f of spanish) expect(translations.filter((tr) => tr.sid === f.sid).map((tr) => tr.language)).toEqual(['en']);
    const intoEnglish = translations.filter((tr) => tr.language === 'en').map((tr) => tr.text.toLowerCase());
    expect(intoEnglish.join(' ')).toMatch(/hello .*good morning/);

    // The task: no translation_languages of its own.
    const tasks = (await api(t.url, 'GET', '/api/v1/tasks', { key })).body.data.tasks;
    expect(tasks.find((x: { task_id: string }) => x.task_id === taskId)).toMatchObject({
      type: 'conversation',
      translation_languages: null,
    });
    cl.ws.close();
  }, 300_000);

  it('speaker actions outside a conversation: invalid_data; without a recording: session_not_started', async () => {
    const { cl } = await open();
    cl.send(vt('start_speaking', { speaker_id: '1' }));
    expect((await errorWith(cl, 'session_not_started')).data.details).toMatchObject({ action: 'start_speaking' });
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    await event(cl, 'session_started', 15_000);
    cl.send(vt('stop_speaking'));
    expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({ action: 'stop_speaking', reason: 'not_conversation' });
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 30_000);
    cl.ws.close();
  }, 60_000);
});
