/** Conformance of every translator: reference sentences on the pairs it serves, WER under its limit. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apertiumFactory } from '../../../src/engines/builtin/apertium.js';
import { openccFactory } from '../../../src/engines/builtin/opencc.js';
import { EngineError } from '../../../src/engines/errors.js';
import { wordErrorRate } from '../../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../../src/engines/registry.js';
import type { Translator } from '../../../src/engines/types.js';
import { languageServes } from '../../../src/languages.js';
import { chatFromEngines, engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MAX_WER } from './quality.js';

const set = await engineSet<Translator>('translator');
beforeAll(async () => {
  // The remote LLM translator is answered by the real built-in translators behind the local server.
  const builtins: Translator[] = [];
  for (const f of [apertiumFactory, openccFactory]) {
    const t = await f.create(set.ctx);
    if (!('unavailable' in t)) builtins.push(t as Translator);
  }
  closeAlso.push(...builtins);
  const registry = EngineRegistry.fromEngines(builtins);
  chatFromEngines(set.server, {
    translate: async (text, from, to) => {
      const t = registry.find({ kind: 'translator', from, to });
      if (!t) throw new Error(`no built-in path ${from} -> ${to}`);
      return t.translate(text, { from, to });
    },
  });
});
const closeAlso: Translator[] = [];
afterAll(async () => {
  await Promise.allSettled(closeAlso.map((a) => a.close?.()));
  await set.close();
});

/** Reference translations (human), per directed pair. */
const REFERENCES: Array<{ from: string; to: string; text: string; reference: string }> = [
  { from: 'en', to: 'es', text: 'The meeting is tomorrow.', reference: 'La reunión es mañana.' },
  { from: 'en', to: 'es', text: 'I have three dogs and a cat.', reference: 'Tengo tres perros y un gato.' },
  { from: 'es', to: 'en', text: 'La reunión es mañana.', reference: 'The meeting is tomorrow.' },
  { from: 'zh-TW', to: 'zh-CN', text: '請在星期五之前寄給我。', reference: '请在星期五之前寄给我。' },
];

const serves = (t: Translator, from: string, to: string) =>
  (t.capabilities.pairs ?? []).some(([f, g]) => languageServes(f, from) && languageServes(g, to));

forEachEngine(set, (engine) => {
  const cases = REFERENCES.filter((r) => serves(engine, r.from, r.to));

  it('translates the reference sentences of the pairs it serves under its WER limit', async () => {
    expect(cases.length).toBeGreaterThan(0); // an engine serving none of them needs a reference added above
    let errors = 0;
    let words = 0;
    for (const c of cases) {
      const out = await engine.translate(c.text, { from: c.from, to: c.to });
      expect(out.trim()).not.toBe('');
      const n = c.reference.split(/\s+/).length;
      errors += wordErrorRate(c.reference, out) * n;
      words += n;
    }
    expect(errors / words).toBeLessThan(limit(MAX_WER.translator, engine.id));
  });

  it('empty text stays empty', async () => {
    const c = cases[0]!;
    expect((await engine.translate('  ', { from: c.from, to: c.to })).trim()).toBe('');
  });

  it('a pair it does not serve is refused with a typed EngineError', async () => {
    if (serves(engine, 'xx', 'yy')) return; // serves every pair (LLM translators)
    const err = await rejection(engine.translate('Hello.', { from: 'xx', to: 'yy' }));
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toMatch(/^translation_/);
  });

  it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
    const c = cases[0]!;
    const ac = new AbortController();
    ac.abort();
    expect(isAbortOrEngineError(await rejection(engine.translate(c.text, { from: c.from, to: c.to, signal: ac.signal })))).toBe(true);
  });
});
