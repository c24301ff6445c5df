import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { EngineError } from '../../src/engines/errors.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { RemoteEndpoint } from '../../src/engines/remote/http.js';
import { createOpenAiChat, openAiChatFactory } from '../../src/engines/remote/openai-chat.js';
import { createOpenAiSpeech } from '../../src/engines/remote/openai-speech.js';
import { createOpenAiTranscription, windowFields } from '../../src/engines/remote/openai-transcription.js';
import { llmTranslator } from '../../src/engines/remote/openai-translator.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';

let server: OpenAiServer;
let ep: RemoteEndpoint;
beforeAll(async () => {
  server = await startOpenAiServer();
  ep = { baseUrl: server.url, model: 'test-model', apiKey: 'sk-test', timeoutMs: 2000, retries: 2, retryBaseMs: 20 };
  server.apiKey = 'sk-test';
});
afterAll(() => server.close());

const codeOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return { code: (err as EngineError).code, retryable: (err as EngineError).retryable };
};

describe('remote/openai-chat', () => {
  it('streams deltas over SSE and reports usage from the final chunk', async () => {
    server.reply = () => 'The meeting agreed on the budget.';
    const deltas: string[] = [];
    const res = await createOpenAiChat(ep).chat([{ role: 'user', content: 'Summarize.' }], { onDelta: (d) => deltas.push(d) });
    expect(res.text).toBe('The meeting agreed on the budget.');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(res.text);
    expect(res.usage.output).toBe(6);
    expect(res.usage.input).toBeGreaterThan(0);
    expect(res.truncated).toBe(false);
    const sent = server.requests.at(-1);
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.json).toMatchObject({ model: 'test-model', stream: true });
  });

  it('reports truncated when the output stops at max_tokens', async () => {
    server.reply = () => 'one two three four five six seven';
    const res = await createOpenAiChat(ep).chat([{ role: 'user', content: 'x' }], { maxTokens: 3 });
    expect(res).toMatchObject({ text: 'one two three ', truncated: true });
  });

  it('retries 429 honouring Retry-After, and 500, then succeeds', async () => {
    server.reply = () => 'ok';
    server.script.push({ status: 429, headers: { 'retry-after': '0.3' } }, { status: 500 });
    const before = server.requests.length;
    const t0 = Date.now();
    const res = await createOpenAiChat(ep).chat([{ role: 'user', content: 'x' }]);
    expect(res.text).toBe('ok');
    expect(server.requests.length - before).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('maps failures to the spec codes and does not retry other 4xx', async () => {
    const chat = createOpenAiChat(ep);
    const msg = [{ role: 'user' as const, content: 'x' }];
    server.script.push({ status: 429 }, { status: 429 }, { status: 429 });
    expect(await codeOf(chat.chat(msg))).toEqual({ code: 'llm_rate_limit', retryable: true });
    server.script.push({ status: 503 }, { status: 503 }, { status: 503 });
    expect(await codeOf(chat.chat(msg))).toEqual({ code: 'llm_provider_error', retryable: true });
    const before = server.requests.length;
    server.script.push({ status: 403 });
    expect(await codeOf(chat.chat(msg))).toEqual({ code: 'llm_auth_failed', retryable: false });
    expect(server.requests.length - before).toBe(1);
    expect((await codeOf(createOpenAiChat({ ...ep, apiKey: 'wrong' }).chat(msg))).code).toBe('llm_auth_failed');
    expect((await codeOf(createOpenAiChat({ ...ep, model: 'missing' }).chat(msg))).code).toBe('llm_deployment_not_found');
    server.script.push({ status: 429, body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } } });
    expect((await codeOf(chat.chat(msg))).code).toBe('llm_quota_exceeded');
    server.script.push({ status: 402 });
    expect((await codeOf(chat.chat(msg))).code).toBe('llm_quota_exceeded');
    server.script.push({ status: 400 });
    expect(await codeOf(chat.chat(msg))).toEqual({ code: 'llm_request_failed', retryable: false });
  });

  it('times out slow answers (llm_timeout) and reports refused content (llm_content_filtered)', async () => {
    const chat = createOpenAiChat({ ...ep, timeoutMs: 200, retries: 0 });
    server.script.push({ slowMs: 600 });
    expect(await codeOf(chat.chat([{ role: 'user', content: 'x' }]))).toEqual({ code: 'llm_timeout', retryable: true });
    server.filterMode = 'finish';
    expect((await codeOf(chat.chat([{ role: 'user', content: 'a FORBIDDEN word' }]))).code).toBe('llm_content_filtered');
    server.filterMode = 'error';
    expect((await codeOf(chat.chat([{ role: 'user', content: 'a FORBIDDEN word' }]))).code).toBe('llm_content_filtered');
    server.filterMode = 'finish';
  });

  it('retries a dropped connection, and fails with a retryable code when the server is gone', async () => {
    server.reply = () => 'back';
    server.script.push({ drop: true });
    expect((await createOpenAiChat(ep).chat([{ role: 'user', content: 'x' }])).text).toBe('back');
    const dead = createOpenAiChat({ ...ep, baseUrl: 'http://127.0.0.1:9/v1', retries: 1 });
    expect(await codeOf(dead.chat([{ role: 'user', content: 'x' }]))).toEqual({ code: 'llm_request_failed', retryable: true });
  });

  it('is unavailable with the setting to set when no URL is configured, and listed as remote when it is', async () => {
    const logger = (await import('pino')).pino({ level: 'silent' });
    const off = await EngineRegistry.create({ config: loadConfig({}), modelsDir: '/nowhere', logger }, [openAiChatFactory]);
    expect(off.status[0]).toMatchObject({ available: false, reason: expect.stringContaining('PARLEY_REMOTE_LLM_URL') });
    const on = await EngineRegistry.create({ config: loadConfig({ PARLEY_REMOTE_LLM_URL: server.url }), modelsDir: '/nowhere', logger }, [
      openAiChatFactory,
    ]);
    expect(on.find({ kind: 'llm' })?.id).toBe('remote/openai-chat');
  });
});

describe('remote/openai-translator', () => {
  it('sends a strict translation prompt, cleans quotes, serves any pair through the registry', async () => {
    server.reply = () => '"Por favor, envíame el informe."';
    const tr = llmTranslator(createOpenAiChat(ep), 'remote/openai-translator', 'remote');
    const reg = EngineRegistry.fromEngines([tr]);
    expect(reg.find({ kind: 'translator', from: 'en', to: 'es' })?.id).toBe('remote/openai-translator');
    expect(reg.find({ kind: 'translator', from: 'zh-TW', to: 'ja' })?.id).toBe('remote/openai-translator');
    const out = await tr.translate('Please send me the report.', { from: 'en', to: 'es' });
    expect(out).toBe('Por favor, envíame el informe.');
    const sys = (server.requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages[0]?.content;
    expect(sys).toContain('English (en)');
    expect(sys).toContain('Spanish (es)');
    expect(sys).toContain('Output only the translation');
  });

  it('fails with translation_failed, retryable when the provider may recover', async () => {
    const tr = llmTranslator(createOpenAiChat({ ...ep, retries: 0 }), 'remote/openai-translator', 'remote');
    server.script.push({ status: 500 });
    expect(await codeOf(tr.translate('Hello', { from: 'en', to: 'de' }))).toEqual({ code: 'translation_failed', retryable: true });
    server.script.push({ status: 401 });
    expect(await codeOf(tr.translate('Hello', { from: 'en', to: 'de' }))).toEqual({ code: 'translation_failed', retryable: false });
  });
});

describe('remote/openai-transcription and remote/openai-speech', () => {
  const audio = { sampleRate: 16000, samples: new Float32Array(16000 * 3).map((_, i) => Math.sin(i / 10) * 0.3) };

  it('uploads WAV with verbose_json and word + segment granularities; words land in their segments', async () => {
    server.transcript = 'hello from the remote server';
    const t = await createOpenAiTranscription(ep).transcribe(audio, { language: 'en-US' });
    expect(t.text).toBe('hello from the remote server');
    expect(t.language).toBe('en');
    expect(t.durationMs).toBe(3000);
    expect(t.segments.map((s) => s.text)).toEqual(['hello from the', 'remote server']);
    expect(t.segments[1]?.words.map((w) => w.text)).toEqual(['remote', 'server']);
    expect(t.segments[0]?.words[1]).toMatchObject({ text: 'from', startMs: 600 });
    expect(server.requests.at(-1)?.form).toMatchObject({
      model: ['test-model'],
      response_format: ['verbose_json'],
      'timestamp_granularities[]': ['word', 'segment'],
      language: ['en'],
    });
  });

  it('maps transcription failures to stt codes', async () => {
    const stt = createOpenAiTranscription({ ...ep, retries: 0 });
    server.script.push({ status: 401 });
    expect((await codeOf(stt.transcribe(audio, { language: 'en' }))).code).toBe('stt_auth_failed');
    server.script.push({ status: 502 });
    expect(await codeOf(stt.transcribe(audio, { language: 'en' }))).toEqual({ code: 'stt_connection_lost', retryable: true });
    server.script.push({ status: 400 });
    expect((await codeOf(stt.transcribe(audio, { language: 'en' }))).code).toBe('stt_start_failed');
  });

  it('synthesizes MP3, measures its duration and estimates word boundaries in order', async () => {
    const tts = createOpenAiSpeech(ep, ['alloy', 'echo'], 'ffmpeg');
    expect(tts.voices('fr').map((v) => [v.voice_name, v.is_default])).toEqual([
      ['alloy', true],
      ['echo', false],
    ]);
    const text = 'Good morning, everyone. Let us begin.';
    const r = await tts.synthesize(text, { language: 'en', speakingRate: 5 });
    expect(r.mp3.subarray(0, 3).toString('latin1')).toMatch(/^(ID3|\xff)/);
    expect((server.requests.at(-1)!.json as { speed: number }).speed).toBe(2);
    expect(r.durationMs).toBeGreaterThan(800);
    expect(r.boundaries.map((b) => b.text)).toEqual(['Good', 'morning', 'everyone', 'Let', 'us', 'begin']);
    expect(r.boundaries[2]?.text_offset).toBe(text.indexOf('everyone'));
    const last = r.boundaries.at(-1);
    expect(last && last.offset_ms + last.duration_ms).toBeLessThanOrEqual(r.durationMs);
    for (let i = 1; i < r.boundaries.length; i++) expect(r.boundaries[i]?.offset_ms).toBeGreaterThan(r.boundaries[i - 1]?.offset_ms ?? 0);
  });
});

describe('engine host window fields of a pass (docs/whisper.md, "Fitted window")', () => {
  const fitted = { padSeconds: 5, finalMinSeconds: 2 };
  it('fits drafts (trimmed on a loop), long live finals (redone on a loop), never imports or short finals', () => {
    expect(windowFields(fitted, { language: 'en', priority: 'live', draft: true }, 0.8)).toEqual({
      beam_size: '1',
      window_pad: '5',
      window_fallback: 'trim',
    });
    // Loud speech the VAD missed: drafted by the main model, not the host's draft model.
    expect(windowFields(fitted, { language: 'en', priority: 'live', draft: true, mainModel: true }, 0.8)).toMatchObject({
      draft_model: 'off',
    });
    expect(windowFields(fitted, { language: 'en', priority: 'live' }, 2.5)).toEqual({ window_pad: '5', window_fallback: 'full' });
    expect(windowFields(fitted, { language: 'en', priority: 'live' }, 1.9)).toEqual({});
    expect(windowFields(fitted, { language: 'en', priority: 'batch' }, 60)).toEqual({});
    expect(windowFields(fitted, { language: 'en' }, 60)).toEqual({});
    expect(windowFields({ padSeconds: 5, finalMinSeconds: 0 }, { language: 'en', priority: 'live' }, 9)).toEqual({});
    expect(windowFields({ padSeconds: 0, finalMinSeconds: 2 }, { language: 'en', priority: 'live', draft: true }, 9)).toEqual({});
  });
});
