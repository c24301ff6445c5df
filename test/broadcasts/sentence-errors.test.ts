/**
 * Sentence-level `error` events of a broadcast's viewer stream (spec "SSE: broadcast viewer":
 * error_code, severity, message, context, sid, translation_language, timestamp), each by a real
 * cause through remote engines on local OpenAI-compatible servers: a translation service that
 * refuses every prompt (translation_failed for each final sentence), then a speech service that
 * answers 500 (tts_synthesis_failed for each sentence, to the viewers who listen only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiSpeechFactory } from '../../src/engines/remote/openai-speech.js';
import { openAiTranslatorFactory } from '../../src/engines/remote/openai-translator.js';
import type { Synthesizer } from '../../src/engines/types.js';
import { connect, jfkPcm, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { engineFrom } from '../support/seeded-tasks.js';
import { newBroadcast, openViewer, realKey, type SseEvent } from './support.js';

describe('broadcast viewers: per-sentence errors (sqlite, remote engines on local servers)', () => {
  let t: TestApp;
  let llm: OpenAiServer;
  let speech: OpenAiServer;
  let espeak: Synthesizer;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    llm.reply = (messages) => `[${messages.at(-1)?.content.split('\n').at(-1) ?? ''}]`;
    llm.filterMode = 'error';
    speech = await startOpenAiServer();
    espeak = (await engineFrom(espeakFactory)) as Synthesizer;
    speech.synthesizer = espeak;
    const env = { PARLEY_REMOTE_LLM_URL: llm.url, PARLEY_REMOTE_TTS_URL: speech.url, PARLEY_REMOTE_RETRIES: '0' };
    const engines = [
      await engineFrom(pocketsphinxStreamingFactory),
      await engineFrom(openAiTranslatorFactory, env),
      await engineFrom(openAiSpeechFactory, env),
    ];
    t = await startLiveApp('sqlite', { engines: EngineRegistry.fromEngines(engines) });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await speech?.close();
    await espeak?.close?.();
  });

  it('translation_failed and tts_synthesis_failed reach viewers with sid and translation_language; audio errors only to listeners', async () => {
    const k = await realKey(t);
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key })).body.data.ticket as string;
    const host = await connect(t, [`ticket.${ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
    expect(started.data).toMatchObject({ action: 'session_started', phase: 'live' });
    // Viewers join once the host has put the broadcast on air (before, the stream is 404 not_started).
    const listener = await openViewer(t, b.token, '?lang=es&tts=true');
    const reader = await openViewer(t, b.token, '?lang=es');
    await listener.next((e) => e.event === 'connected');
    await reader.next((e) => e.event === 'connected');
    const pcm = jfkPcm();

    // Every prompt refused: each final sentence's translation fails.
    llm.filterWords = [''];
    await streamPcm(host, pcm.subarray(0, 32_000 * 5), 2);
    const failed = await reader.next((e) => e.event === 'error' && e.data.error_code === 'translation_failed', 60_000);
    expect(failed.data).toEqual({
      error_code: 'translation_failed',
      severity: 'error',
      message: expect.any(String),
      context: 'translation',
      sid: expect.any(Number),
      translation_language: 'es',
      timestamp: expect.any(String),
    });
    // Its sentence is the one the host was told about, and its origin reached viewers first.
    const hostError = await host.next((m) => m.type === 'error' && m.data.error_code === 'translation_failed', 10_000);
    expect(hostError.data.sid).toBe(failed.data.sid);
    expect(reader.events.some((e) => e.event === 'origin' && e.data.is_final && e.data.sid === failed.data.sid)).toBe(true);
    await listener.next((e) => e.event === 'error' && e.data.sid === failed.data.sid, 10_000);

    // Translations work again; the speech service answers 500 to everything: each spoken sentence fails.
    llm.filterWords = ['FORBIDDEN'];
    speech.script.push(...Array.from({ length: 50 }, () => ({ status: 500 })));
    await streamPcm(host, pcm.subarray(32_000 * 5), 2);
    const translated = await listener.next((e) => e.event === 'translation' && e.data.is_final, 60_000);
    const unspoken = await listener.next((e) => e.event === 'error' && e.data.error_code === 'tts_synthesis_failed', 60_000);
    expect(unspoken.data).toEqual({
      error_code: 'tts_synthesis_failed',
      severity: 'error',
      message: expect.any(String),
      context: 'tts',
      sid: expect.any(Number),
      translation_language: 'es',
      timestamp: expect.any(String),
    });
    expect(unspoken.data.sid).toBeGreaterThanOrEqual(translated.data.sid);
    expect(listener.events.some((e) => e.event === 'tts_ready')).toBe(false);

    host.send(vt('stop'));
    await host.next((m) => m.data?.action === 'task_complete', 90_000);
    await reader.next((e) => e.event === 'ended', 30_000);
    const errorsOf = (v: { events: SseEvent[] }) => v.events.filter((e) => e.event === 'error').map((e) => e.data.error_code as string);
    // The reader does not listen: no audio errors; the listener got both kinds.
    expect(errorsOf(reader).length).toBeGreaterThan(0);
    expect(new Set(errorsOf(reader))).toEqual(new Set(['translation_failed']));
    expect(new Set(errorsOf(listener))).toEqual(new Set(['translation_failed', 'tts_synthesis_failed']));
    // Session-level errors (translation_service_unavailable has no sid) stay with the host.
    for (const v of [reader, listener]) expect(v.events.every((e) => e.event !== 'error' || Number.isInteger(e.data.sid))).toBe(true);
    listener.close();
    reader.close();
    host.ws.close();
  }, 240_000);
});
