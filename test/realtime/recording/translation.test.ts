/**
 * Real-time translation of a live recording (src/realtime/recording/translation.ts) with the
 * real Apertium translator: which targets a final goes to (a conversation side into the other
 * side's language; multi_language into every target but its own language), the session
 * glossary's dictionary, sentence-level failures and when the client hears that the service is
 * unavailable, retranslate's counts, and the translations a continued recording starts with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { apertiumFactory } from '../../../src/engines/builtin/apertium.js';
import { EngineRegistry } from '../../../src/engines/registry.js';
import type { AnyEngine } from '../../../src/engines/types.js';
import type { Glossary } from '../../../src/glossary/index.js';
import type { AppError } from '../../../src/platform/errors/app-error.js';
import { createLogger } from '../../../src/platform/logging.js';
import { talkOf } from '../../../src/realtime/recording/recognition.js';
import { TRANSLATION_FAILURES_BEFORE_UNAVAILABLE, Translation } from '../../../src/realtime/recording/translation.js';
import type { StartRequest } from '../../../src/realtime/start.js';
import type { SessionEventBody } from '../../../src/stream/events.js';
import type { SentenceInput } from '../../../src/tasks/store.js';

let engines: EngineRegistry;
let apertium: AnyEngine & { close(): Promise<void> };
beforeAll(async () => {
  const e = await apertiumFactory.create({ config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') } as never);
  if ('unavailable' in e) throw new Error(String(e.unavailable));
  apertium = e as never;
  engines = EngineRegistry.fromEngines([apertium]);
});
afterAll(async () => {
  await apertium?.close();
});

function startOf(over: Partial<StartRequest>): StartRequest {
  return {
    type: 'transcribe',
    transcriptionLanguages: ['en'],
    translationLanguages: ['es'],
    realtimeTranslation: true,
    audioFormat: 'pcm',
    recognitionMode: 'single',
    channels: null,
    name: null,
    summary: null,
    ttsEnabled: false,
    conversation: null,
    tts: null,
    profanityHandling: 'mask',
    speakingSpeed: 'normal',
    silenceTimeoutSeconds: 0,
    ...over,
  } as StartRequest;
}

function translation(start: StartRequest, glossary: Glossary | null = null) {
  const events: SessionEventBody[] = [];
  const errors: AppError[] = [];
  const t = new Translation(
    { engines, logger: createLogger('silent'), error: (e) => errors.push(e), publish: (e) => events.push(e), glossary: () => glossary },
    start,
    talkOf(start),
  );
  // biome-ignore lint/suspicious/noExplicitAny: event payloads are read freely
  const translated = () => events.filter((e) => e.event === 'translation').map((e) => e.data as any);
  return { t, events, errors, translated };
}

const sentence = (sid: number, origin: string, language: string): SentenceInput => ({ sid, origin, startMs: 0, endMs: 1000, language });

describe('real-time translation of a live recording (Apertium)', () => {
  it("translates a conversation side into the other side's language only, with the session glossary's dictionary", async () => {
    const start = startOf({
      type: 'conversation',
      translationLanguages: [],
      conversation: {
        mode: 'manual',
        speakers: [
          { speakerId: '1', language: 'en', label: null },
          { speakerId: '2', language: 'es', label: null },
        ],
      },
    });
    const glossary: Glossary = {
      terminology: {},
      fuzzyCorrection: {},
      translationDict: { es: [{ source: 'Parley', target: 'PARLEY-ES', case_sensitive: false }] },
    };
    const { t, translated, errors } = translation(start, glossary);
    t.final(sentence(1, 'The house of Parley is big.', 'en'), '1');
    t.final(sentence(2, 'La casa es grande.', 'es'), '2');
    await t.settle();
    expect(errors).toEqual([]);
    // Each sentence is translated on its own (concurrently): in sid order here.
    const out = translated().sort((a, b) => a.sid - b.sid);
    expect(out.map((d) => [d.sid, d.language, d.is_final])).toEqual([
      [1, 'es', true],
      [2, 'en', true],
    ]);
    expect(out[0].text).toContain('PARLEY-ES');
    expect(out[0].text.toLowerCase()).toContain('casa');
    expect(out[1].text.toLowerCase()).toContain('house');
    expect([...t.translations.keys()].sort()).toEqual(['en', 'es']);
  });

  it('multi_language: a final goes to every target but its own language; without real-time translation, nowhere', async () => {
    const multi = translation(
      startOf({ recognitionMode: 'multi_language', transcriptionLanguages: ['en', 'es'], translationLanguages: ['en', 'es', 'ca'] }),
    );
    multi.t.final(sentence(1, 'The house is big.', 'en'), undefined);
    await multi.t.settle();
    expect(
      multi
        .translated()
        .map((d) => d.language)
        .sort(),
    ).toEqual(['ca', 'es']);

    const off = translation(startOf({ realtimeTranslation: false }));
    off.t.final(sentence(1, 'The house is big.', 'en'), undefined);
    await off.t.settle();
    expect(off.events).toEqual([]);
    expect(off.t.translations.size).toBe(0);
  });

  it(`tells each failed sentence by sid, and after ${TRANSLATION_FAILURES_BEFORE_UNAVAILABLE} in a row that the service is unavailable`, async () => {
    // No Apertium pair translates into German: every sentence fails; a success in between starts the count again.
    const { t, errors } = translation(startOf({ translationLanguages: ['de'] }));
    const fail = async (sid: number) => {
      t.final(sentence(sid, 'The house is big.', 'en'), undefined);
      await t.settle();
    };
    await fail(1);
    await fail(2);
    expect(errors.map((e) => [e.code, e.sid])).toEqual([
      ['translation_failed', 1],
      ['translation_failed', 2],
    ]);
    await fail(3);
    expect(errors.map((e) => e.code)).toEqual([
      'translation_failed',
      'translation_failed',
      'translation_failed',
      'translation_service_unavailable',
    ]);
    expect(errors[3]?.details).toEqual({
      provider: null,
      translation_language: 'de',
      last_error_code: 'translation_failed',
      fail_count: 3,
    });
    await fail(4);
    expect(errors.filter((e) => e.code === 'translation_service_unavailable')).toHaveLength(1);
    expect(t.translations.get('de')?.get(4)).toEqual({ sid: 4, error: 'translation_failed' });
    // retranslate counts what was translated and what failed (the German ones fail again).
    const r = await t.retranslate([sentence(1, 'The house is big.', 'en'), sentence(2, 'Hello.', 'en')], [1], ['es', 'de'], 'en');
    expect(r).toEqual({ updated: 1, failed: 1 });
    expect(t.translations.get('es')?.get(1)?.text?.toLowerCase()).toContain('casa');
    // The Spanish success started the count again: the German failure after it was the first of a new run.
    await fail(5);
    expect(errors.filter((e) => e.code === 'translation_service_unavailable')).toHaveLength(1);
    await fail(6);
    expect(errors.filter((e) => e.code === 'translation_service_unavailable')).toHaveLength(2);
  });

  it('a continued recording starts with the translations of its snapshot; a retranslation replaces an entry', async () => {
    const first = translation(startOf({}));
    first.t.final(sentence(1, 'The house is big.', 'en'), undefined);
    await first.t.settle();
    const snap = JSON.parse(JSON.stringify(first.t.snapshot()));
    expect(snap.translations.es).toHaveLength(1);
    const next = translation(startOf({}));
    next.t.restore(snap);
    expect(next.t.translations.get('es')?.get(1)).toEqual(first.t.translations.get('es')?.get(1));
    const r = await next.t.retranslate([sentence(1, 'The dog is big.', 'en')], null, ['es'], 'en');
    expect(r).toEqual({ updated: 1, failed: 0 });
    expect(next.t.translations.get('es')?.size).toBe(1);
    expect(next.t.translations.get('es')?.get(1)?.text?.toLowerCase()).toContain('perro');
  });
});
