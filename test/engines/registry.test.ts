import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { loadConfig } from '../../src/config.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { openccFactory } from '../../src/engines/builtin/opencc.js';
import { createEngines, ROLE_ENGINE_KINDS, roleEngineLine } from '../../src/engines/index.js';
import { type EngineFactory, EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine, EngineCapabilities, EngineKind, EngineTier, Translator } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { summarizeTask } from '../../src/processing/summarize.js';
import { upload } from '../imports/support.js';
import { startTestApp } from '../support/app.js';

// Engines that only declare capabilities: selection reads nothing else (their methods are never called).
function declared(id: string, kind: EngineKind, tier: EngineTier, capabilities: EngineCapabilities): AnyEngine {
  const never = () => Promise.reject(new Error(`${id} is a declaration only`));
  return { id, kind, tier, capabilities, open: never, transcribe: never, translate: never } as unknown as AnyEngine;
}

const psStream = declared('builtin/ps', 'streaming-stt', 'builtin', {
  languages: ['en'],
  streaming: true,
  interimResults: true,
  wordTimes: true,
});
const zipformer = declared('neural/zip', 'streaming-stt', 'neural', { languages: ['en', 'de'], streaming: true, interimResults: true });
const remoteFile = declared('remote/whisper', 'file-stt', 'remote', { languages: ['*'], wordTimes: true });
const stereo = declared('neural/stereo', 'file-stt', 'neural', { languages: ['en'], wordTimes: true, diarization: true, channels: 2 });

describe('engine registry: selection by need', () => {
  const registry = EngineRegistry.fromEngines([psStream, zipformer, remoteFile, stereo]);

  it('picks the best engine meeting every requirement, by tier order then catalogue order', () => {
    expect(registry.find({ kind: 'streaming-stt', language: 'en-US' })?.id).toBe('neural/zip');
    expect(registry.find({ kind: 'streaming-stt', language: 'en-US', wordTimes: true })?.id).toBe('builtin/ps');
    expect(registry.find({ kind: 'file-stt', language: 'en' })?.id).toBe('remote/whisper');
    expect(registry.find({ kind: 'file-stt', language: 'en', diarization: true })?.id).toBe('neural/stereo');
    expect(registry.find({ kind: 'file-stt', language: 'en', channels: 2 })?.id).toBe('neural/stereo');
  });

  it('the tier order is a setting: builtin first picks PocketSphinx', () => {
    const builtinFirst = EngineRegistry.fromEngines([psStream, zipformer], { tierOrder: ['builtin'] });
    expect(builtinFirst.find({ kind: 'streaming-stt', language: 'en' })?.id).toBe('builtin/ps');
    expect(loadConfig({ PARLEY_ENGINE_TIERS: 'builtin, neural' }).engines.tierOrder).toEqual(['builtin', 'neural']);
    expect(() => loadConfig({ PARLEY_ENGINE_TIERS: 'builtin,cloud' })).toThrow(/PARLEY_ENGINE_TIERS: "cloud" is not a tier/);
    expect(() => loadConfig({ PARLEY_ENGINE_TIERS: 'neural,neural' })).toThrow(/twice/);
  });

  it('refuses with what is missing instead of falling back', () => {
    const de = registry.select({ kind: 'streaming-stt', language: 'de-DE', diarization: true });
    expect(de.ok).toBe(false);
    if (de.ok) return;
    expect(de.refusal).toMatchObject({
      kind: 'streaming-stt',
      missing: ['diarization'],
      message: 'no streaming recognizer here serves de-DE with diarization',
    });
    expect(de.refusal.engines).toEqual([
      { id: 'neural/zip', missing: ['diarization'] },
      { id: 'builtin/ps', missing: ['language', 'diarization'] },
    ]);
    const ja = registry.select({ kind: 'streaming-stt', language: 'ja', interimResults: true });
    expect(!ja.ok && ja.refusal).toMatchObject({
      missing: ['language'],
      message: 'no streaming recognizer here serves ja with interim results',
    });
    const three = registry.select({ kind: 'file-stt', language: 'en', channels: 3 });
    expect(!three.ok && three.refusal).toMatchObject({
      missing: ['channels'],
      message: 'no file recognizer here serves en with 3 channels',
    });
    const none = registry.select({ kind: 'diarizer' });
    expect(!none.ok && none.refusal).toMatchObject({ missing: ['engine'], message: 'no diarizer is available here' });
  });

  it('imports take the neural diarizer; live sessions the first one that labels as audio arrives', () => {
    const neural = declared('neural/whole-file', 'diarizer', 'neural', { languages: ['*'], diarization: true });
    const classic = {
      ...declared('builtin/online', 'diarizer', 'builtin', { languages: ['*'], diarization: true }),
      openLive: () => ({}),
    } as AnyEngine;
    const both = EngineRegistry.fromEngines([neural, classic]);
    expect(both.find({ kind: 'diarizer' })?.id).toBe('neural/whole-file');
    expect(both.find({ kind: 'diarizer', live: true })?.id).toBe('builtin/online');
    const neuralOnly = EngineRegistry.fromEngines([neural]).select({ kind: 'diarizer', live: true });
    expect(!neuralOnly.ok && neuralOnly.refusal).toMatchObject({
      missing: ['streaming'],
      message: 'no diarizer here offers live labelling',
    });
  });

  it('translators: direct pairs, one pivot, and exact script conversion before any-pair engines', async () => {
    const apertiumLike = declared('builtin/rules', 'translator', 'builtin', {
      languages: ['en', 'es', 'fr'],
      pairs: [
        ['en', 'es'],
        ['es', 'fr'],
      ],
    });
    const llm = declared('remote/llm', 'translator', 'remote', { languages: ['*'], pairs: [['*', '*']] });
    const opencc = (await openccFactory.create({} as never)) as Translator;
    const reg = EngineRegistry.fromEngines([opencc, llm, apertiumLike]);
    expect(reg.find({ kind: 'translator', from: 'en', to: 'es' })?.id).toBe('remote/llm');
    expect(reg.find({ kind: 'translator', from: 'zh-TW', to: 'zh-CN' })?.id).toBe(opencc.id);
    expect(await reg.find({ kind: 'translator', from: 'zh-TW', to: 'zh-CN' })?.translate('軟體', { from: 'zh-TW', to: 'zh-CN' })).toBe(
      '软件',
    );
    const rulesOnly = EngineRegistry.fromEngines([apertiumLike]);
    expect(rulesOnly.find({ kind: 'translator', from: 'en', to: 'fr' })?.id).toBe('builtin/rules+builtin/rules');
    const de = rulesOnly.select({ kind: 'translator', from: 'en', to: 'de' });
    expect(!de.ok && de.refusal).toMatchObject({ missing: ['pair'], message: 'no translator here serves en to de' });
  });

  it('a bare language need ("en") is served by a regional engine (en-US); a regional need is not served by another region', () => {
    const usOnly = declared('builtin/us', 'tts', 'builtin', { languages: ['en-US', 'es', 'zh-TW'] });
    const reg = EngineRegistry.fromEngines([usOnly]);
    expect(reg.find({ kind: 'tts', language: 'en' })?.id).toBe('builtin/us');
    expect(reg.find({ kind: 'tts', language: 'EN' })?.id).toBe('builtin/us');
    expect(reg.find({ kind: 'tts', language: 'en-GB' })).toBeUndefined();
    expect(reg.find({ kind: 'tts', language: 'es-MX' })?.id).toBe('builtin/us');
    // Chinese stays script-exact: a bare "zh" names no script.
    expect(reg.find({ kind: 'tts', language: 'zh' })).toBeUndefined();
  });

  it('a TTS need names the voice it asks for', async () => {
    const espeak = (await espeakFactory.create({ config: { engines: { ffmpegPath: 'ffmpeg' } } } as never)) as AnyEngine;
    const reg = EngineRegistry.fromEngines([espeak]);
    const tts = reg.find({ kind: 'tts', language: 'en-US' });
    expect(tts).toBeDefined();
    const voice = tts!.voices('en-US')[0]!.voice_name;
    expect(reg.find({ kind: 'tts', language: 'en-US', voice })?.id).toBe(espeak.id);
    // eSpeak renders sentence by sentence itself (synthesizeStream): it meets a streaming need.
    expect(reg.find({ kind: 'tts', language: 'en-US', streaming: true, wordTimes: true })?.id).toBe(espeak.id);
    expect(reg.status[0]?.capabilities).toMatchObject({ streaming: true, wordTimes: true });
    const missing = reg.select({ kind: 'tts', language: 'en-US', voice: 'no-such-voice' });
    expect(!missing.ok && missing.refusal).toMatchObject({
      missing: ['voice'],
      message: 'no speech synthesizer here serves en-US with voice no-such-voice',
    });
    await reg.close();
  });
});

describe('callers answer a refusal with the spec code', () => {
  it('a summary where no summarizer is loaded: llm_init_failed naming what is missing', async () => {
    const t = await startTestApp(); // no engines at all
    try {
      const deps = t.app.deps;
      const key = await deps.keys.createKey({ name: 'summary' });
      const store = deps.tasks.store;
      const task = await store.createTask({
        accountId: key.account_id,
        keyId: key.key_id,
        title: 's',
        type: 'transcribe',
        typeSource: 'import',
        recognitionMode: 'single',
        processingStatus: 'processing',
      });
      const outcome = await summarizeTask(
        { engines: deps.engines, tasks: store, billing: deps.billing, templates: deps.summaryTemplates, logger: deps.logger },
        { accountId: key.account_id, keyId: key.key_id },
        task.taskId,
        { mode: 'builtin', template: null, language: 'de' },
        { idempotencyKey: 'summary:test' },
      );
      expect(outcome).toEqual({
        ok: false,
        code: 'llm_init_failed',
        message: 'Summaries are not available: no summarizer is available here.',
        retryable: true,
      });
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('engines per role', () => {
  const logger = createLogger('silent');

  it('loads only the kinds a role uses, plus the kinds their factories build on', async () => {
    const made: string[] = [];
    const factory = (id: string, kind: EngineKind, uses?: EngineKind[]): EngineFactory => ({
      id,
      kind,
      tier: 'builtin',
      summary: id,
      uses,
      async create(ctx) {
        made.push(`${id}<-${ctx.loaded.map((e) => e.id).join(',')}`);
        return declared(id, kind, 'builtin', { languages: ['en'] });
      },
    });
    const catalog = [
      factory('file', 'file-stt'),
      factory('vad', 'vad'),
      factory('adapter', 'streaming-stt', ['file-stt', 'vad']),
      factory('tts', 'tts'),
    ];
    const reg = await EngineRegistry.create({ config: loadConfig({}), modelsDir: '/nowhere', logger }, catalog, new Set(['streaming-stt']));
    expect(made).toEqual(['file<-', 'vad<-file', 'adapter<-file,vad']);
    expect(reg.status.map((s) => s.id)).toEqual(['file', 'vad', 'adapter']);
  });

  it('one line per role says what is missing and why', () => {
    const status = [
      { id: 'builtin/espeak', kind: 'tts', tier: 'builtin', summary: '', available: true, languages: ['en'], capabilities: {} },
      {
        id: 'remote/openai-chat',
        kind: 'llm',
        tier: 'remote',
        summary: '',
        available: false,
        reason: 'PARLEY_REMOTE_LLM_URL not set',
        languages: [],
        capabilities: {},
      },
    ] as const;
    const line = roleEngineLine('api', status as never);
    expect(line.missing).toEqual(['summarizer', 'translator', 'llm', 'language-id']);
    expect(line.message).toContain('role api: engines missing for summarizer (no engine of this kind in the catalogue)');
    expect(line.message).toContain('llm (remote/openai-chat: PARLEY_REMOTE_LLM_URL not set)');
    expect(line.message).toContain('ready: tts');
    expect(ROLE_ENGINE_KINDS.realtime).toEqual(expect.arrayContaining(['streaming-stt', 'vad', 'diarizer', 'translator', 'tts']));
  });

  it('an api-only process loads TTS, summaries, translation and language id, and lists voices through the registry', async () => {
    const config = loadConfig({ PARLEY_ROLES: 'api', PARLEY_DATA_DIR: '/nowhere' });
    const engines = await createEngines(config, logger);
    const t = await startTestApp({ env: { PARLEY_ROLES: 'api' }, engines, bus: new InProcessBus() }); // alone: its own bus
    try {
      const kinds = new Set(t.app.deps.engines.status.map((s) => s.kind));
      expect(kinds.has('streaming-stt')).toBe(false);
      expect(kinds.has('file-stt')).toBe(false);
      const tts = t.app.deps.engines.select({ kind: 'tts', language: 'en-US' });
      expect(tts.ok).toBe(true);
      if (!tts.ok) return;
      const voices = tts.engine.voices('en-US');
      expect(voices.length).toBeGreaterThan(0);
      expect(voices.some((v) => v.is_default)).toBe(true);
      expect(t.app.deps.engines.serves({ kind: 'summarizer', language: 'en' })).toBe(true);
      expect(t.app.deps.engines.serves({ kind: 'translator', from: 'en', to: 'es' })).toBe(true);
      expect(t.app.deps.engines.serves({ kind: 'language-id' })).toBe(true);
      // Its translators answer an import's unserved translation language at upload.
      const key = await t.app.deps.keys.createKey({ name: 'api-only' });
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 20, pool: 'account' });
      const res = await upload(t.url, key.api_key, {
        file: { bytes: Buffer.from('ID3 not audio'), name: 'a.mp3' },
        fields: { translation_languages: '["ja"]' },
      });
      expect(res.status).toBe(422);
      expect(res.body.data).toMatchObject({ error_code: 'validation_failed', details: { field: 'translation_languages', language: 'ja' } });
      expect(res.body.data.details.valid_values).toContain('es');
    } finally {
      await t.close();
    }
  }, 60_000);
});
