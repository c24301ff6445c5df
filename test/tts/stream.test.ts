/**
 * The TTS SSE stream end to end with real SSE clients: eSpeak voices and Apertium
 * translations (en -> es) on a real database; per-sentence failures through the remote
 * translator and remote speech engine against the local OpenAI-compatible test server.
 * Every refusal is checked for its code, status and for charging nothing; translations made
 * for the stream for the usage row and the balance.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiSpeechFactory } from '../../src/engines/remote/openai-speech.js';
import { openAiTranslatorFactory } from '../../src/engines/remote/openai-translator.js';
import type { Synthesizer, Translator } from '../../src/engines/types.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { type Account, engineFrom, fundedAccount, SENTENCES, seedTask } from '../support/seeded-tasks.js';
import { readSse as readEvents } from '../tasks/harness.js';

async function readSse(url: string, headers: Record<string, string> = {}) {
  const r = await readEvents(url, headers);
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  return { ...r, events: r.events as Array<{ event: string; data: any }> };
}

/** Decodes an MP3 with ffmpeg: its duration in ms (proves the bytes are a playable MP3). */
function mp3DurationMs(mp3: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'parley-tts-'));
  try {
    writeFileSync(join(dir, 'a.mp3'), mp3);
    const pcm = execFileSync(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-i', join(dir, 'a.mp3'), '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'],
      {
        maxBuffer: 64 << 20,
      },
    );
    return (pcm.length / 32_000) * 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(backends())('TTS SSE with eSpeak and Apertium (%s)', (backend) => {
  let t: TestApp;
  let espeak: Synthesizer;
  let apertium: Translator;
  const credit = async (a: Account) => (await api(t.url, 'GET', '/api/v1/me/plan', { key: a.key })).body.data.available_credit;
  const usage = async (a: Account) =>
    (
      (await api(t.url, 'GET', '/api/v1/me/usage?per_page=20', { key: a.key })).body.data as Array<{
        type: string;
        points: number;
        refunded: boolean;
      }>
    ).map((u) => [u.type, u.points, u.refunded]);
  beforeAll(async () => {
    espeak = (await engineFrom(espeakFactory)) as Synthesizer;
    apertium = (await engineFrom(apertiumFactory)) as Translator;
    t = await startTestApp({
      backend,
      engines: EngineRegistry.fromEngines([espeak, apertium]),
      env: { PARLEY_PRICE_RETRANSLATE: '3', PARLEY_PRICE_RETRANSLATE_SENTENCE: '0.25' },
    });
  }, 60_000);
  afterAll(() => t?.close());

  it('defaults: sid 1, length 1, the language default voice; connected, tts_audio with a playable MP3 and word boundaries, tts_done; free', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    const r = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=en-US`, { 'x-api-key': a.key });
    expect(r.status).toBe(200);
    expect(r.events.map((e) => e.event)).toEqual(['connected', 'tts_audio', 'tts_done']);
    expect(r.events[0]!.data).toEqual({
      message: 'connected',
      task_id: taskId,
      language: 'en-US',
      voice_name: 'espeak-en-US-female-1',
      sids: [1],
    });
    const audio = r.events[1]!.data;
    expect(audio).toMatchObject({ sid: 1, language: 'en-US', transcript: 'The house is big.', text: 'The house is big.', format: 'mp3' });
    const mp3 = Buffer.from(audio.audio, 'base64');
    expect(mp3.subarray(0, 3).toString('latin1') === 'ID3' || (mp3[0] === 0xff && (mp3[1]! & 0xe0) === 0xe0)).toBe(true);
    expect(Math.abs(mp3DurationMs(mp3) - audio.duration_ms)).toBeLessThan(200);
    expect(audio.boundaries.map((b: { text: string }) => b.text)).toEqual(['The', 'house', 'is', 'big']);
    for (const b of audio.boundaries) {
      expect(Object.keys(b).sort()).toEqual(['duration_ms', 'offset_ms', 'text', 'text_offset', 'word_length']);
      expect('The house is big.'.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
      expect(b.offset_ms + b.duration_ms).toBeLessThanOrEqual(audio.duration_ms + 1);
    }
    expect(r.events[2]!.data).toEqual({ sids: [1], total_spoken: 1, translation_errors: {} });
    expect(await usage(a)).toEqual([]);
    expect(await credit(a)).toBe(10);
  });

  it('a range in a translation language: stored translations spoken free, missing ones translated, saved and billed per sentence', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a, { es: { 1: 'La casa es grande.' } });
    const r = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=es&sid=1&length=3&voice=espeak-es-male-1&api_key=${a.key}`);
    expect(r.events.map((e) => [e.event, e.data.sid])).toEqual([
      ['connected', undefined],
      ['tts_audio', 1],
      ['tts_audio', 2],
      ['tts_audio', 3],
      ['tts_done', undefined],
    ]);
    expect(r.events[0]!.data.voice_name).toBe('espeak-es-male-1');
    const spoken = r.events.slice(1, 4).map((e) => e.data.text);
    expect(spoken[0]).toBe('La casa es grande.');
    for (const i of [1, 2]) expect(spoken[i]).toBe(await apertium.translate(SENTENCES[i]!.origin, { from: 'en', to: 'es' }));
    // The two translations made now are saved and billed as a retranslation of two sentences.
    const history = await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { 'x-api-key': a.key });
    expect(history.events.filter((e) => e.event === 'init_sentence').map((e) => e.data.translations.es)).toEqual(spoken);
    expect(await usage(a)).toEqual([['retranslate', 0.5, false]]);
    expect(await credit(a)).toBe(9.5);
  });

  it('refusals before the stream: each code and status, nothing charged', async () => {
    const a = await fundedAccount(t, 10);
    const other = await fundedAccount(t, 10);
    const ok = await seedTask(t, a);
    const record = await seedTask(t, a, { type: 'record' });
    const busy = await seedTask(t, a, { status: 'processing' });
    const empty = await seedTask(t, a, { sentences: [] });
    const foreign = await seedTask(t, other);
    const cases: Array<[string, string | null, number, string, Record<string, unknown>?]> = [
      [`/api/v1/sse/tts/${ok}?language=en`, null, 401, 'auth_missing_api_key'],
      [`/api/v1/sse/tts/${foreign}?language=en`, a.key, 404, 'recording_not_found'],
      [`/api/v1/sse/tts/${ok}`, a.key, 400, 'tts_invalid_language', { field: 'language' }],
      [`/api/v1/sse/tts/${ok}?language=%20nope%20`, a.key, 400, 'tts_invalid_language'],
      [`/api/v1/sse/tts/${ok}?language=xx`, a.key, 400, 'tts_invalid_language', { language: 'xx' }],
      [`/api/v1/sse/tts/${ok}?language=en&voice=espeak-es-male-1`, a.key, 404, 'tts_voice_not_found'],
      [`/api/v1/sse/tts/${ok}?language=en&sid=0`, a.key, 422, 'validation_failed', { field: 'sid' }],
      [`/api/v1/sse/tts/${ok}?language=en&length=21`, a.key, 422, 'validation_failed', { field: 'length', max: 20 }],
      [`/api/v1/sse/tts/${ok}?language=en&length=x`, a.key, 422, 'validation_failed', { field: 'length' }],
      [`/api/v1/sse/tts/${busy}?language=en`, a.key, 422, 'invalid_processing_status'],
      [`/api/v1/sse/tts/${empty}?language=en`, a.key, 404, 'sse_transcript_not_found'],
      [`/api/v1/sse/tts/${ok}?language=en&sid=4`, a.key, 404, 'sse_sentence_not_found'],
      [`/api/v1/sse/tts/${record}?language=es`, a.key, 400, 'record_translation_not_allowed'],
    ];
    for (const [path, key, status, code, details] of cases) {
      const res = await fetch(`${t.url}${path}`, key ? { headers: { 'x-api-key': key } } : {});
      expect(res.headers.get('content-type')).toContain('application/json');
      const body = (await res.json()) as { data: { error_code: string; details: Record<string, unknown> } };
      expect({ path, status: res.status, code: body.data.error_code }).toEqual({ path, status, code });
      if (details) expect(body.data.details).toMatchObject(details);
    }
    // A record task in its own language is spoken.
    const own = await readSse(`${t.url}/api/v1/sse/tts/${record}?language=en`, { 'x-api-key': a.key });
    expect(own.events.map((e) => e.event)).toEqual(['connected', 'tts_audio', 'tts_done']);
    expect(await usage(a)).toEqual([]);
    expect(await credit(a)).toBe(10);
  });

  it('credit and plans: translations need credit (402), plans without tts get 403, length 20 is the most', async () => {
    const broke = await fundedAccount(t, 0);
    const brokeTask = await seedTask(t, broke);
    const r1 = await api(t.url, 'GET', `/api/v1/sse/tts/${brokeTask}?language=es`, { key: broke.key });
    expect([r1.status, r1.body.data.error_code]).toEqual([402, 'auth_insufficient_credit']);
    // Its own language needs no translation: spoken at a zero balance.
    const own = await readSse(`${t.url}/api/v1/sse/tts/${brokeTask}?language=en`, { 'x-api-key': broke.key });
    expect(own.events.at(-1)!.event).toBe('tts_done');

    const short = await fundedAccount(t, 0.3);
    const shortTask = await seedTask(t, short);
    const r2 = await api(t.url, 'GET', `/api/v1/sse/tts/${shortTask}?language=es&length=3`, { key: short.key });
    expect([r2.status, r2.body.data.error_code]).toEqual([402, 'auth_quota_exceeded']);
    expect(await usage(short)).toEqual([]);

    const trial = await fundedAccount(t, 0);
    await t.app.deps.plans.setPlan(trial.accountId, { mode: 'unlimited-plan', planName: 'trial', expiresAt: null });
    const trialTask = await seedTask(t, trial);
    const r3 = await api(t.url, 'GET', `/api/v1/sse/tts/${trialTask}?language=en`, { key: trial.key });
    expect([r3.status, r3.body.data.error_code]).toEqual([403, 'plan_feature_not_allowed']);
    expect(r3.body.data.details).toMatchObject({ field: 'tts' });

    const many = Array.from({ length: 22 }, (_, i) => ({
      sid: i + 1,
      origin: `Sentence number ${i + 1}.`,
      startMs: i * 1000,
      endMs: i * 1000 + 900,
    }));
    const a = await fundedAccount(t, 0);
    const long = await seedTask(t, a, { sentences: many });
    const r4 = await readSse(`${t.url}/api/v1/sse/tts/${long}?language=en&sid=2&length=20`, { 'x-api-key': a.key });
    expect(r4.events.filter((e) => e.event === 'tts_audio').map((e) => e.data.sid)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  }, 60_000);
});

describe.each(backends())('TTS SSE per-sentence failures through remote engines (%s)', (backend) => {
  let t: TestApp;
  let llm: OpenAiServer;
  let espeak: Synthesizer;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    espeak = (await engineFrom(espeakFactory)) as Synthesizer;
    llm.synthesizer = espeak;
    llm.reply = (messages) => `[${messages.at(-1)?.content.split('\n').at(-1) ?? ''}]`;
    const env = { PARLEY_REMOTE_LLM_URL: llm.url, PARLEY_REMOTE_TTS_URL: llm.url, PARLEY_REMOTE_RETRIES: '0' };
    const engines = [await engineFrom(openAiTranslatorFactory, env), await engineFrom(openAiSpeechFactory, env)];
    t = await startTestApp({ backend, engines: EngineRegistry.fromEngines(engines), env: { PARLEY_PRICE_RETRANSLATE_SENTENCE: '1' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await espeak?.close?.();
  });

  it('a sentence not translated and a sentence not spoken are error events with their sid; the rest is spoken; failures recorded', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a, {
      sentences: [SENTENCES[0]!, { ...SENTENCES[1]!, origin: 'This one says FORBIDDEN.' }, SENTENCES[2]!],
    });
    llm.filterWords = ['FORBIDDEN'];
    // Requests in order: translate 1, speak 1, translate 2 (filtered), translate 3, speak 3 (scripted 500).
    const speechBefore = llm.requests.filter((r) => r.path === '/audio/speech').length;
    llm.script.push({ slowMs: 0 }, { slowMs: 0 }, { slowMs: 0 }, { slowMs: 0 }, { status: 500 });
    const r = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=de&length=3`, { 'x-api-key': a.key });
    llm.filterWords = [];
    llm.script.length = 0;
    expect(r.events.map((e) => [e.event, e.data.sid, e.data.error_code])).toEqual([
      ['connected', undefined, undefined],
      ['tts_audio', 1, undefined],
      ['error', 2, 'translation_failed'],
      ['error', 3, 'tts_synthesis_failed'],
      ['tts_done', undefined, undefined],
    ]);
    expect(llm.requests.filter((x) => x.path === '/audio/speech').length - speechBefore).toBe(2);
    expect(r.events.at(-1)!.data).toEqual({
      sids: [1, 2, 3],
      total_spoken: 1,
      translation_errors: { 2: 'translation_failed', 3: 'tts_synthesis_failed' },
    });
    // The failed translation is recorded on the sentence; the translations made are saved and billed.
    const history = await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { 'x-api-key': a.key });
    const sentences = history.events.filter((e) => e.event === 'init_sentence').map((e) => e.data);
    expect(sentences[1]).toMatchObject({ translation_errors: { de: 'translation_failed' } });
    expect(sentences[0].translations.de).toEqual(expect.any(String));
    expect(sentences[2].translations.de).toEqual(expect.any(String));
    expect(await api(t.url, 'GET', '/api/v1/me/plan', { key: a.key }).then((x) => x.body.data.available_credit)).toBe(7);
  }, 60_000);
});
