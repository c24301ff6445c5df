/**
 * Japanese speech with Kokoro's Japanese voices (neural/kokoro-tts, in an engine host of its own;
 * installed by setup) beside eSpeak NG, as the service loads them, through HTTP and the session
 * and broadcast paths: the voices list, a voice's sample, the TTS SSE with word boundaries on the
 * text, in-session and broadcast speech. What is spoken is checked by ear where no one listens:
 * Whisper (the multilingual base model the setup installs) must hear Japanese, with the text's
 * characters. Runs where setup installed the voice; CI (PARLEY_TEST_REQUIRE_ENGINES names
 * neural/kokoro-tts) fails without it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ViewerSpeech } from '../../src/broadcasts/viewer-speech.js';
import { loadConfig } from '../../src/config.js';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { KOKORO_ID, kokoroTtsFactory } from '../../src/engines/neural/kokoro-tts.js';
import { whisperFactory } from '../../src/engines/neural/whisper.js';
import { characterErrorRate } from '../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { FileRecognizer, SynthesizeOptions, Synthesizer } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { SessionTts } from '../../src/realtime/session-tts.js';
import { synthesizerFor } from '../../src/tts/voice-choice.js';
import { realKey } from '../billing/support.js';
import { requiredEngines } from '../engines/conformance/engines.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { fundedAccount, seedTask } from '../support/seeded-tasks.js';
import { readSse as readEvents } from '../tasks/harness.js';

async function readSse(url: string, headers: Record<string, string> = {}) {
  const r = await readEvents(url, headers);
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  return { ...r, events: r.events as Array<{ event: string; data: any }> };
}

const config = loadConfig({
  PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR,
  PARLEY_MODELS_DIR: process.env.PARLEY_MODELS_DIR,
  PARLEY_ENGINE_HOST_PYTHON: process.env.PARLEY_ENGINE_HOST_PYTHON,
});
const ctx = {
  config,
  modelsDir: config.engines.modelsDir ?? join(config.platform.dataDir, 'models'),
  logger: createLogger('silent'),
  loaded: [],
};
const made = await kokoroTtsFactory.create(ctx);
const why = 'unavailable' in made ? made.unavailable : null;
if (why && requiredEngines().includes(KOKORO_ID)) throw new Error(`${KOKORO_ID} is required here but ${why}`);

/** The real engines, each call counted by engine id (which engine spoke is what these tests check). */
function counted(engine: Synthesizer, calls: string[]): Synthesizer {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop === 'synthesize' || prop === 'synthesizeStream')
        return (text: string, o: SynthesizeOptions) => {
          calls.push(`${target.id} ${o.voice ?? '(default)'}`);
          return (target[prop] as (t: string, o: SynthesizeOptions) => unknown).call(target, text, o);
        };
      return Reflect.get(target, prop, receiver);
    },
  });
}

describe.skipIf(why !== null)(`the Japanese voices (${why ?? 'kokoro-ja-v1_0-int8'})`, () => {
  let t: TestApp;
  let key: string;
  let engines: Synthesizer[];
  let whisper: FileRecognizer | undefined;
  const calls: string[] = [];

  /**
   * Checks what Whisper hears in an MP3: Japanese (detected among four languages) with the
   * text's characters. Without Whisper (PARLEY_WHISPER=off) nothing is checked, unless CI
   * requires it (PARLEY_TEST_REQUIRE_WHISPER=1).
   */
  async function expectHeard(mp3: Buffer, text: string): Promise<void> {
    if (!whisper) return;
    const pcm = await decodeToPcm(mp3, { ffmpegPath: 'ffmpeg' });
    const heard = await whisper.transcribe(pcm, { language: 'en', languages: ['en', 'ja', 'zh', 'ko'] });
    console.info(`Whisper heard (${heard.language}): ${heard.text}`);
    expect(heard.language).toBe('ja');
    expect(characterErrorRate(text, heard.text)).toBeLessThan(0.35);
  }

  beforeAll(async () => {
    const espeak = await espeakFactory.create(ctx);
    if ('unavailable' in espeak) throw new Error(espeak.unavailable);
    const w = await whisperFactory.create(ctx);
    if (!('unavailable' in w)) whisper = w as FileRecognizer;
    else if (process.env.PARLEY_TEST_REQUIRE_WHISPER === '1') throw new Error(`PARLEY_TEST_REQUIRE_WHISPER=1 but ${w.unavailable}`);
    else console.warn(`Japanese speech is not checked by ear: ${w.unavailable}`);
    engines = [counted(made as Synthesizer, calls), counted(espeak as Synthesizer, calls)];
    // The registry orders them as the service does: neural before built-in.
    t = await startTestApp({
      engines: EngineRegistry.fromEngines([espeak, made] as never).observed((e) => engines.find((c) => c.id === e.id) ?? e),
    });
    key = (await realKey(t)).key;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await whisper?.close?.();
    for (const e of engines ?? []) await e.close?.();
  });

  it("lists Kokoro's five voices first for Japanese, Alpha the only default; eSpeak's Japanese voices after them", async () => {
    for (const language of ['ja', 'ja-JP']) {
      const r = await api(t.url, 'GET', `/api/v1/tts/voices?language=${language}`, { key });
      expect(r.status).toBe(200);
      const voices = r.body.data.voices as Array<{ voice_name: string; display_name: string; gender: string; is_default: boolean }>;
      expect(voices.slice(0, 5).map((v) => v.voice_name)).toEqual([
        'kokoro-jf-alpha',
        'kokoro-jf-gongitsune',
        'kokoro-jf-nezumi',
        'kokoro-jf-tebukuro',
        'kokoro-jm-kumo',
      ]);
      expect(voices[0]).toMatchObject({ display_name: 'Japanese Alpha (neural)', gender: 'Female', is_default: true });
      expect(voices[4]).toMatchObject({ display_name: 'Japanese Kumo (neural)', gender: 'Male', is_default: false });
      expect(voices.filter((v) => v.is_default)).toHaveLength(1);
      expect(voices.slice(5).every((v) => v.voice_name.startsWith('espeak-ja'))).toBe(true);
    }
    // Other languages: no Kokoro voice.
    const en = await api(t.url, 'GET', '/api/v1/tts/voices?language=en', { key });
    expect((en.body.data.voices as Array<{ voice_name: string }>).some((v) => v.voice_name.startsWith('kokoro-'))).toBe(false);
  });

  it("serves a Kokoro voice's sample as MP3 that Whisper hears as Japanese; an unknown voice is 404 tts_voice_not_found", async () => {
    const res = await fetch(`${t.url}/api/v1/tts/voices/kokoro-jm-kumo/sample`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const mp3 = Buffer.from(await res.arrayBuffer());
    expect(mp3.byteLength).toBeGreaterThan(5000);
    expect(calls).toContain(`${KOKORO_ID} kokoro-jm-kumo`);
    await expectHeard(mp3, 'こんにちは、翻訳を読み上げるときの私の声です。');
    const missing = await api(t.url, 'GET', '/api/v1/tts/voices/kokoro-jf-nobody/sample', { key });
    expect(missing.status).toBe(404);
    expect(missing.body.data.error_code).toBe('tts_voice_not_found');
  }, 300_000);

  it('the TTS SSE speaks Japanese with Kokoro by default, word boundaries on the text; Whisper hears the text', async () => {
    const a = await fundedAccount(t, 0);
    const text = '会議は午後から始まります。資料を準備してください。';
    const taskId = await seedTask(t, a, { sentences: [{ sid: 1, origin: text, startMs: 0, endMs: 4000, language: 'ja-JP' }] });
    const r = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=ja-JP`, { 'x-api-key': a.key });
    expect(r.events.map((e) => e.event)).toEqual(['connected', 'tts_audio', 'tts_done']);
    expect(r.events[0]!.data.voice_name).toBe('kokoro-jf-alpha');
    const audio = r.events[1]!.data;
    const words = audio.boundaries.map((b: { text: string }) => b.text);
    expect(words.slice(0, 2)).toEqual(['会議', 'は']);
    expect(words).toContain('資料');
    let last = -1;
    for (const b of audio.boundaries) {
      expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
      expect(b.offset_ms).toBeGreaterThan(last);
      expect(b.offset_ms + b.duration_ms).toBeLessThanOrEqual(audio.duration_ms + 1);
      last = b.offset_ms;
    }
    await expectHeard(Buffer.from(audio.audio, 'base64'), text);
    // An eSpeak voice named in the request speaks with eSpeak.
    const named = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=ja-JP&voice=espeak-ja-female-1`, { 'x-api-key': a.key });
    expect(named.events[0]!.data.voice_name).toBe('espeak-ja-female-1');
    expect(calls.at(-1)).toBe('builtin/espeak espeak-ja-female-1');
  }, 300_000);

  it("a text over the host's 4096-character input is spoken sentence by sentence on one timeline", async () => {
    const text = `はい。${' '.repeat(4100)}いいえ。`;
    const r = await (made as Synthesizer).synthesize(text, { language: 'ja' });
    expect(r.boundaries.map((b) => [b.text, b.text_offset])).toEqual([
      ['はい', 0],
      ['いいえ', text.indexOf('いいえ')],
    ]);
    expect(r.boundaries[1]!.offset_ms).toBeGreaterThan(r.boundaries[0]!.offset_ms + r.boundaries[0]!.duration_ms);
    const pcm = await decodeToPcm(r.mp3, { ffmpegPath: 'ffmpeg' });
    expect(Math.abs((pcm.samples.length / pcm.sampleRate) * 1000 - r.durationMs)).toBeLessThan(150);
  }, 300_000);

  it('in-session TTS: Japanese finals with Kokoro, the voice the session chose', async () => {
    const spoken: Array<Record<string, unknown>> = [];
    const session = new SessionTts(
      {
        engines: { enginesOf: () => engines as never },
        logger: createLogger('silent'),
        sentence: () => ({ transcript: 'Good morning, everyone.', text: '皆さん、おはようございます。' }),
        emit: (_action, payload) => spoken.push(payload),
      },
      { enabled: true, language: 'ja', voice: 'kokoro-jf-nezumi', mode: 'sync', speakingRate: 1 },
      false,
    );
    calls.length = 0;
    expect(session.play(1, 1)).toBe(1);
    await expect.poll(() => spoken.length, { timeout: 240_000, interval: 500 }).toBe(1);
    expect(calls).toEqual([`${KOKORO_ID} kokoro-jf-nezumi`]);
    expect(spoken[0]).toMatchObject({ sid: 1, language: 'ja', text: '皆さん、おはようございます。', format: 'mp3' });
    const words = (spoken[0]!.boundaries as Array<{ text: string }>).map((b) => b.text);
    expect(words[0]).toBe('皆さん');
  }, 300_000);

  it('broadcast viewers: Japanese with Kokoro, English with eSpeak NG', async () => {
    const published: Array<{ event: string; data: Record<string, unknown> }> = [];
    const speech = new ViewerSpeech({
      synthesizer: (language, voice) => synthesizerFor(engines, language, voice),
      setting: () => undefined,
      live: () => true,
      publish: async (e) => {
        published.push(e as never);
      },
      now: () => new Date(),
      logger: createLogger('silent'),
    });
    calls.length = 0;
    speech.add({ sid: 1, language: 'ja', transcript: 'Welcome.', text: 'ようこそ。' });
    speech.add({ sid: 1, language: 'en', transcript: 'ようこそ。', text: 'Welcome.' });
    await expect.poll(() => published.length, { timeout: 240_000, interval: 500 }).toBe(2);
    expect(published.map((e) => e.event)).toEqual(['tts_ready', 'tts_ready']);
    expect(calls.sort()).toEqual(['builtin/espeak (default)', `${KOKORO_ID} (default)`]);
    const ja = published.find((e) => e.data.language === 'ja')!;
    expect((ja.data.boundaries as Array<{ text: string }>).map((b) => b.text)).toEqual(['ようこそ']);
  }, 300_000);
});
