import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApertiumTranslator, apertiumFactory, cleanOutput, discoverPairs, escapeStream } from '../../src/engines/builtin/apertium.js';
import { openccFactory } from '../../src/engines/builtin/opencc.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { Translator } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';

const ctx = { logger: createLogger('silent') } as never;

describe('built-in translation: Apertium and OpenCC', () => {
  let apertium: ApertiumTranslator;
  let registry: EngineRegistry;
  beforeAll(async () => {
    apertium = (await apertiumFactory.create(ctx)) as ApertiumTranslator;
    registry = EngineRegistry.fromEngines([apertium, (await openccFactory.create(ctx)) as Translator]);
  });
  afterAll(() => apertium.close());

  it('discovers the installed pairs as BCP 47 codes', () => {
    const pairs = discoverPairs().map((p) => `${p.from}>${p.to}`);
    expect(pairs).toEqual(expect.arrayContaining(['en>es', 'es>en', 'fr>es', 'es>fr', 'es>pt', 'en>ca']));
  });

  it('translates a fixed English sentence to the stored Spanish output, keeping the final punctuation', async () => {
    const es = await registry
      .find({ kind: 'translator', from: 'en-US', to: 'es' })!
      .translate('Please send me the report before Friday.', { from: 'en-US', to: 'es' });
    expect(es).toBe('Complacer enviarme el informe antes de que viernes.');
    expect(await apertium.translate('The meeting is tomorrow.', { from: 'en', to: 'es' })).toBe('La reunión es mañana.');
  });

  it('pivots through Spanish where no direct pair exists (en -> fr)', async () => {
    const t = registry.find({ kind: 'translator', from: 'en', to: 'fr' });
    expect(t).toBeDefined();
    expect(t!.id).toContain('+');
    const fr = await t!.translate('The meeting is tomorrow.', { from: 'en', to: 'fr' });
    expect(fr.toLowerCase()).toContain('réunion');
  });

  it('has no path for a language no engine serves', () => {
    expect(registry.find({ kind: 'translator', from: 'en', to: 'ja' })).toBeUndefined();
    expect(registry.find({ kind: 'translator', from: 'de', to: 'en' })).toBeUndefined();
  });

  it('escapes stream-format characters and strips unknown-word marks', async () => {
    expect(escapeStream('a^b$c[d]')).toBe('a\\^b\\$c\\[d\\]');
    expect(cleanOutput('*Hola #mundo @x  .')).toBe('Hola mundo x.');
    const out = await apertium.translate('I have 3 dogs [and] a cat^.', { from: 'en', to: 'es' });
    expect(out).toContain('3');
    expect(out).toContain('perros');
  });

  it('a killed Apertium process is restarted and the request is answered', async () => {
    await apertium.translate('Good morning.', { from: 'en', to: 'es' });
    const pid = apertium.processFor('en', 'es')!.pid!;
    expect(pid).toBeGreaterThan(0);
    // The request goes to the process as it dies: it is answered by the restarted one.
    process.kill(-pid, 'SIGKILL');
    expect(await apertium.translate('The meeting is tomorrow.', { from: 'en', to: 'es' })).toBe('La reunión es mañana.');
    expect(apertium.processFor('en', 'es')!.pid).not.toBe(pid);
    expect(await apertium.translate('Good night.', { from: 'en', to: 'es' })).toBeTruthy();
  });

  it('OpenCC converts Traditional (Taiwan) and Simplified Chinese both ways, and Hong Kong', async () => {
    const toCn = registry.find({ kind: 'translator', from: 'zh-TW', to: 'zh-CN' })!;
    expect(await toCn.translate('軟體開發的資訊', { from: 'zh-TW', to: 'zh-CN' })).toBe('软件开发的信息');
    const toTw = registry.find({ kind: 'translator', from: 'zh-CN', to: 'zh-TW' })!;
    expect(await toTw.translate('软件开发的信息', { from: 'zh-CN', to: 'zh-TW' })).toBe('軟體開發的資訊');
    const toHk = registry.find({ kind: 'translator', from: 'zh-CN', to: 'zh-HK' })!;
    expect(await toHk.translate('后台', { from: 'zh-CN', to: 'zh-HK' })).toMatch(/^後/);
  });
});
