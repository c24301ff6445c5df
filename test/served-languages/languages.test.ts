/**
 * GET /api/v1/languages over real HTTP: the built-in engines (PocketSphinx English, Apertium,
 * OpenCC, eSpeak) offer English speech only, with the regional tags people pick, and the
 * translation targets Apertium reaches from it; every language refusal (import, live start,
 * broadcast creation) names exactly the endpoint's list. With Whisper installed (test/support/whisper.ts),
 * its bare codes come out as regional tags (de -> de-DE, zh -> zh-CN, zh-TW) for both uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { openccFactory } from '../../src/engines/builtin/opencc.js';
import { pocketsphinxFileFactory, pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { whisperFactory } from '../../src/engines/neural/whisper.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { liveFromFileFactory } from '../../src/engines/streaming/factory.js';
import { createLogger } from '../../src/platform/logging.js';
import { upload } from '../imports/support.js';
import { type Client, connect, ticketAndKey } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { whisperContext, whisperMissing } from '../support/whisper.js';

async function builtinEngines(): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  return EngineRegistry.create(ctx, [pocketsphinxStreamingFactory, pocketsphinxFileFactory, openccFactory, apertiumFactory, espeakFactory]);
}

async function keyOf(t: TestApp): Promise<string> {
  const key = await t.app.deps.keys.createKey({ name: 'langs' });
  await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
  return key.api_key;
}

describe('GET /api/v1/languages with the built-in engines', () => {
  let t: TestApp;
  let key: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies freely
  let offer: any;
  beforeAll(async () => {
    t = await startTestApp({ engines: await builtinEngines() });
    key = await keyOf(t);
    const res = await api(t.url, 'GET', '/api/v1/languages', { key });
    expect(res.status).toBe(200);
    offer = res.body.data;
  }, 60_000);
  afterAll(() => t?.close());

  it('needs an API key', async () => {
    const res = await api(t.url, 'GET', '/api/v1/languages');
    expect(res.status).toBe(401);
    expect(res.body.data.error_code).toBe('auth_missing_api_key');
  });

  it('offers English speech only, common regions first, with display names', () => {
    expect(offer.live).toEqual(['en-US', 'en-GB', 'en', 'en-AU', 'en-CA', 'en-IN']);
    expect(offer.import).toEqual(offer.live);
    expect(offer.names['en-US']).toBe('English (United States)');
    expect(offer.names.en).toBe('English');
  });

  it('lists the translation targets reachable from each speech language (Apertium, OpenCC), never its own language', () => {
    expect(offer.translation['en-US']).toEqual(expect.arrayContaining(['es', 'fr', 'ca']));
    expect(offer.translation['en-US']).not.toContain('de');
    expect(offer.translation['en-US']).not.toContain('en');
    expect(offer.translation['zh-TW']).toEqual(['zh-CN']);
    expect(offer.names['zh-CN']).toBe('Chinese (Simplified, China)');
  });

  it('lists the TTS languages of eSpeak', () => {
    expect(offer.tts).toEqual(expect.arrayContaining(['en-US', 'es', 'de']));
    expect(offer.names.de).toBe('German');
  });

  it.skipIf(!haveSharedAudio())('an import in a language no recognizer serves is refused with the offered list', async () => {
    const res = await upload(t.url, key, { file: { path: convert(JFK, 'wav') }, fields: { transcription_languages: '["de-DE"]' } });
    expect(res.status).toBe(422);
    expect(res.body.data).toMatchObject({
      error_code: 'validation_failed',
      details: { field: 'transcription_languages', language: 'de-DE' },
    });
    expect(res.body.data.details.valid_values).toEqual(offer.import);
  });

  it('a live start in a language no recognizer serves is refused with the offered list', async () => {
    const { ticket } = await ticketAndKey(t);
    const cl: Client = await connect(t, [`ticket.${ticket}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['de-DE'] } });
    const r = await cl.next();
    expect(r.data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'transcription_languages' } });
    expect(r.data.details.valid_values).toEqual(offer.live);
    cl.send({
      type: 'voice-translation',
      data: { action: 'start', type: 'transcribe', transcription_languages: ['en-US'], translation_languages: ['de'] },
    });
    const m = await cl.next();
    expect(m.data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'translation_languages' } });
    expect(m.data.details.valid_values).toEqual(offer.translation['en-US']);
    cl.ws.close();
  });

  it('a broadcast in a language no live recognizer serves is refused at creation, not at its first start', async () => {
    const res = await api(t.url, 'POST', '/api/v1/broadcasts', { key, body: { transcription_languages: ['de-DE'], name: 'Kirche' } });
    expect(res.status).toBe(422);
    expect(res.body.data).toMatchObject({
      error_code: 'validation_failed',
      details: { field: 'transcription_languages', language: 'de-DE' },
    });
    expect(res.body.data.details.valid_values).toEqual(offer.live);
    const ok = await api(t.url, 'POST', '/api/v1/broadcasts', { key, body: { transcription_languages: ['en-GB'], name: 'Church' } });
    expect(ok.status).toBe(200);
    const id = ok.body.data.id as string;
    const patch = await api(t.url, 'PATCH', `/api/v1/broadcasts/${id}`, { key, body: { transcription_languages: ['fr-FR'] } });
    expect(patch.status).toBe(422);
    expect(patch.body.data.details).toMatchObject({ field: 'transcription_languages', language: 'fr-FR' });
  });
});

const whisperWhy = whisperMissing();

describe.skipIf(whisperWhy !== null)('GET /api/v1/languages with Whisper', () => {
  let t: TestApp;
  let registry: EngineRegistry;
  beforeAll(async () => {
    const ctx = whisperContext();
    registry = await EngineRegistry.create(ctx, [whisperFactory, sileroVadFactory, liveFromFileFactory, apertiumFactory]);
    t = await startTestApp({ engines: registry });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
  });

  it('offers its bare codes as the regional tags people pick, for imports and live sessions', async () => {
    const res = await api(t.url, 'GET', '/api/v1/languages', { key: await keyOf(t) });
    expect(res.status).toBe(200);
    const offer = res.body.data;
    for (const list of [offer.import, offer.live]) {
      expect(list.slice(0, 4)).toEqual(['en-US', 'en-GB', 'en', 'es-ES']);
      expect(list).toEqual(expect.arrayContaining(['de-DE', 'de', 'de-AT', 'fr-CA', 'pt-BR', 'zh-CN', 'zh-TW', 'ja-JP', 'sw-TZ']));
      expect(list.length).toBeGreaterThan(150);
    }
    expect(offer.names['zh-TW']).toBe('Chinese (Traditional, Taiwan)');
    expect(offer.translation['es-MX']).toEqual(expect.arrayContaining(['en', 'fr']));
  });
});
