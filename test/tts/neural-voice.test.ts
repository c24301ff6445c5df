/**
 * The neural English voice (Piper joe through sherpa-onnx, installed by setup) beside eSpeak
 * NG, as the service loads them: English speaks with the neural voice by default on every
 * path (voices list, sample, TTS SSE with word boundaries, in-session and broadcast speech),
 * other languages and eSpeak voice names chosen earlier go to eSpeak NG. Runs where setup
 * installed the voice; CI (PARLEY_TEST_REQUIRE_ENGINES=neural/sherpa-tts) fails without it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ViewerSpeech } from '../../src/broadcasts/viewer-speech.js';
import { loadConfig } from '../../src/config.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { sherpaTtsFactory } from '../../src/engines/neural/sherpa-tts.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { SynthesizeOptions, Synthesizer } from '../../src/engines/types.js';
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

const JOE = 'piper-en-us-joe-medium';
const config = loadConfig({ PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR, PARLEY_MODELS_DIR: process.env.PARLEY_MODELS_DIR });
const ctx = {
  config,
  modelsDir: config.engines.modelsDir ?? join(config.platform.dataDir, 'models'),
  logger: createLogger('silent'),
  loaded: [],
};
const made = await sherpaTtsFactory.create(ctx);
const why = 'unavailable' in made ? made.unavailable : null;
if (why && requiredEngines().includes('neural/sherpa-tts')) throw new Error(`neural/sherpa-tts is required here but ${why}`);

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

describe.skipIf(why !== null)(`the neural English voice (${why ?? JOE})`, () => {
  let t: TestApp;
  let key: string;
  let engines: Synthesizer[];
  const calls: string[] = [];

  beforeAll(async () => {
    const espeak = await espeakFactory.create(ctx);
    if ('unavailable' in espeak) throw new Error(espeak.unavailable);
    engines = [counted(made as Synthesizer, calls), counted(espeak as Synthesizer, calls)];
    // The registry orders them as the service does: neural before built-in.
    t = await startTestApp({
      engines: EngineRegistry.fromEngines([espeak, made] as never).observed((e) => engines.find((c) => c.id === e.id) ?? e),
    });
    key = (await realKey(t)).key;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    for (const e of engines ?? []) await e.close?.();
  });

  it('lists the neural voice first and as the only default for English; eSpeak voices after it', async () => {
    const r = await api(t.url, 'GET', '/api/v1/tts/voices?language=en-US', { key });
    expect(r.status).toBe(200);
    const voices = r.body.data.voices as Array<{ voice_name: string; display_name: string; gender: string; is_default: boolean }>;
    expect(voices[0]).toMatchObject({ voice_name: JOE, display_name: 'English (US) Joe (neural)', gender: 'Male', is_default: true });
    expect(voices.filter((v) => v.is_default)).toHaveLength(1);
    expect(voices.slice(1).map((v) => v.voice_name)).toContain('espeak-en-US-female-1');
  });

  it('other languages keep eSpeak NG only, with its default', async () => {
    const r = await api(t.url, 'GET', '/api/v1/tts/voices?language=es', { key });
    const voices = r.body.data.voices as Array<{ voice_name: string; is_default: boolean }>;
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.every((v) => v.voice_name.startsWith('espeak-es'))).toBe(true);
    expect(voices.find((v) => v.is_default)?.voice_name).toBe('espeak-es-female-1');
  });

  it("serves the neural voice's sample as MP3", async () => {
    const res = await fetch(`${t.url}/api/v1/tts/voices/${JOE}/sample`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(5000);
    expect(calls).toContain(`neural/sherpa-tts ${JOE}`);
  }, 60_000);

  it('the TTS SSE speaks English with the neural voice by default, word boundaries on the text; an eSpeak voice by name', async () => {
    const a = await fundedAccount(t, 0);
    const text = 'Please send me the report before Friday.';
    const taskId = await seedTask(t, a, { sentences: [{ sid: 1, origin: text, startMs: 0, endMs: 2000, language: 'en-US' }] });
    const r = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=en-US`, { 'x-api-key': a.key });
    expect(r.events.map((e) => e.event)).toEqual(['connected', 'tts_audio', 'tts_done']);
    expect(r.events[0]!.data.voice_name).toBe(JOE);
    const audio = r.events[1]!.data;
    expect(audio.boundaries.map((b: { text: string }) => b.text)).toEqual(['Please', 'send', 'me', 'the', 'report', 'before', 'Friday']);
    let last = -1;
    for (const b of audio.boundaries) {
      expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
      expect(b.offset_ms).toBeGreaterThan(last);
      expect(b.offset_ms + b.duration_ms).toBeLessThanOrEqual(audio.duration_ms + 1);
      last = b.offset_ms;
    }
    const named = await readSse(`${t.url}/api/v1/sse/tts/${taskId}?language=en-US&voice=espeak-en-US-male-1`, { 'x-api-key': a.key });
    expect(named.events[0]!.data.voice_name).toBe('espeak-en-US-male-1');
    expect(calls.at(-1)).toBe('builtin/espeak espeak-en-US-male-1');
  }, 60_000);

  it('in-session TTS: English finals with the neural voice; a session that chose an eSpeak voice keeps it', async () => {
    const spoken: Array<Record<string, unknown>> = [];
    const make = (voice: string | null) =>
      new SessionTts(
        {
          engines: { enginesOf: () => engines as never },
          logger: createLogger('silent'),
          sentence: () => ({ transcript: 'Hola a todos.', text: 'Hello everyone.' }),
          emit: (_action, payload) => spoken.push(payload),
        },
        { enabled: true, language: 'en', voice, mode: 'sync', speakingRate: 1 },
        false,
      );
    calls.length = 0;
    expect(make(null).play(1, 1)).toBe(1);
    await expect.poll(() => spoken.length, { timeout: 30_000 }).toBe(1);
    expect(calls).toEqual(['neural/sherpa-tts (default)']);
    expect(spoken[0]).toMatchObject({ sid: 1, language: 'en', text: 'Hello everyone.', format: 'mp3' });
    expect((spoken[0]!.boundaries as Array<{ text: string }>).map((b) => b.text)).toEqual(['Hello', 'everyone']);
    make('espeak-en-US-female-2').play(2, 1);
    await expect.poll(() => spoken.length, { timeout: 30_000 }).toBe(2);
    expect(calls.at(-1)).toBe('builtin/espeak espeak-en-US-female-2');
  }, 60_000);

  it('broadcast viewers: English with the neural voice, Spanish with eSpeak NG', async () => {
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
    speech.add({ sid: 1, language: 'en', transcript: 'Hola.', text: 'Welcome to the meeting.' });
    speech.add({ sid: 1, language: 'es', transcript: 'Hello.', text: 'Bienvenidos a la reunión.' });
    await expect.poll(() => published.length, { timeout: 30_000 }).toBe(2);
    expect(published.map((e) => e.event)).toEqual(['tts_ready', 'tts_ready']);
    expect(calls.sort()).toEqual(['builtin/espeak (default)', 'neural/sherpa-tts (default)']);
    const en = published.find((e) => e.data.language === 'en')!;
    expect((en.data.boundaries as Array<{ text: string }>).map((b) => b.text)).toEqual(['Welcome', 'to', 'the', 'meeting']);
  }, 60_000);
});
