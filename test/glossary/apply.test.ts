import { afterAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import type { Translator } from '../../src/engines/types.js';
import {
  applyFuzzyCorrection,
  applyGlossary,
  dictionaryFor,
  type Glossary,
  parseGlossary,
  termHints,
  translateWithDictionary,
} from '../../src/glossary/index.js';
import { createLogger } from '../../src/platform/logging.js';

function glossary(input: Parameters<typeof parseGlossary>[0]): Glossary {
  const r = parseGlossary(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.glossary;
}

describe('fuzzy correction and terminology on recognized text', () => {
  it('a one-word term heard written apart (Whisper: "Pico voice") is shown as the term; other words are left alone', () => {
    const g = glossary({ terminology: { 'en-US': [{ term: 'Picovoice' }, { term: 'New York' }] } });
    expect(applyGlossary('Pico voice. And pico-voice, picovoice', 'en-US', g)).toBe('Picovoice. And Picovoice, Picovoice');
    expect(applyGlossary('Pico voices of new york', 'en-US', g)).toBe('Pico voices of New York');
    expect(applyGlossary('Pico  voice', 'en-US', g)).toBe('Pico  voice');
  });

  it('case_insensitive defaults to false: a variant matches only with exactly its case', () => {
    const g = glossary({ fuzzy_correction: { en: [{ correct: 'Kubernetes', incorrect: ['cooper netties'] }] } });
    expect(applyFuzzyCorrection('we run cooper netties in prod', 'en-US', g)).toBe('we run Kubernetes in prod');
    expect(applyFuzzyCorrection('Cooper Netties again', 'en-US', g)).toBe('Cooper Netties again');
  });

  it('case_insensitive: true matches any case', () => {
    const g = glossary({ fuzzy_correction: { en: [{ correct: 'Kubernetes', incorrect: ['cooper netties'], case_insensitive: true }] } });
    expect(applyFuzzyCorrection('Cooper Netties again', 'en', g)).toBe('Kubernetes again');
  });

  it('Western languages match whole words only', () => {
    const g = glossary({ fuzzy_correction: { en: [{ correct: 'AI', incorrect: ['ai'] }] } });
    expect(applyFuzzyCorrection('I said ai is here', 'en', g)).toBe('I said AI is here');
  });

  it('collisions on the same variant resolve on the variant and the strict rule wins', () => {
    const g = glossary({
      fuzzy_correction: {
        en: [
          { correct: 'Postgres', incorrect: ['post grass'], case_insensitive: true },
          { correct: 'PostgreSQL', incorrect: ['post grass'] },
        ],
      },
    });
    expect(applyFuzzyCorrection('we use post grass', 'en', g)).toBe('we use PostgreSQL');
    // Strict wins for the whole variant: another case no longer matches.
    expect(applyFuzzyCorrection('we use Post Grass', 'en', g)).toBe('we use Post Grass');
  });

  it('case_insensitive has no effect on Chinese rules, which match as substrings', () => {
    const g = glossary({
      fuzzy_correction: { 'zh-TW': [{ correct: 'GitHub', incorrect: ['get hub', '吉特哈布'], case_insensitive: true }] },
    });
    expect(applyFuzzyCorrection('我們用吉特哈布管理程式碼', 'zh-TW', g)).toBe('我們用GitHub管理程式碼');
    expect(applyFuzzyCorrection('上傳到get hub吧', 'zh-TW', g)).toBe('上傳到GitHub吧');
    expect(applyFuzzyCorrection('上傳到Get Hub吧', 'zh-TW', g)).toBe('上傳到Get Hub吧');
  });

  it('a Chinese rule without incorrect replaces nothing and is a term hint', () => {
    const g = glossary({ fuzzy_correction: { 'zh-TW': [{ correct: '台積電' }] }, terminology: { 'zh-TW': [{ term: '晶圓' }] } });
    expect(applyFuzzyCorrection('台積店的晶圓', 'zh-TW', g)).toBe('台積店的晶圓');
    expect(termHints('zh-TW', g)).toEqual(['晶圓', '台積電']);
  });

  it('rules for a language do not touch another language, and "en" serves "en-GB"', () => {
    const g = glossary({
      fuzzy_correction: { es: [{ correct: 'Parley', incorrect: ['parlei'] }], en: [{ correct: 'Parley', incorrect: ['parlay'] }] },
    });
    expect(applyFuzzyCorrection('parlei and parlay', 'en-GB', g)).toBe('parlei and Parley');
  });

  it('terminology gives terms their canonical casing, whole words only, after fuzzy correction', () => {
    const g = glossary({
      terminology: { en: [{ term: 'GraphQL' }, { term: 'New York City' }] },
      fuzzy_correction: { en: [{ correct: 'graphql', incorrect: ['graph cool'] }] },
    });
    expect(applyGlossary('graph cool in new york city, not graphqlx', 'en-US', g)).toBe('GraphQL in New York City, not graphqlx');
  });
});

describe('translation dictionary around real translators', async () => {
  const made = await apertiumFactory.create({ logger: createLogger('silent') } as never);
  const apertium = 'unavailable' in made ? undefined : (made as Translator);
  afterAll(() => apertium?.close?.());

  it.skipIf(!apertium)('case_sensitive defaults to false: the source matches in any case and the target is put in', async () => {
    const g = glossary({
      translation_dict: {
        es: [
          { source: 'Parley', target: 'Parley' },
          { source: 'invoice', target: 'factura proforma' },
        ],
      },
    });
    const out = await translateWithDictionary('Send the INVOICE to Parley today.', dictionaryFor(g, 'es'), (t) =>
      apertium!.translate(t, { from: 'en', to: 'es' }),
    );
    expect(out).toContain('factura proforma');
    expect(out).toContain('Parley');
    expect(out).not.toMatch(/QZX/i);
  });

  it.skipIf(!apertium)('case_sensitive: true only matches the exact case', async () => {
    const g = glossary({ translation_dict: { es: [{ source: 'Apple', target: 'Apple Inc.', case_sensitive: true }] } });
    const entries = dictionaryFor(g, 'es-MX');
    const tr = (t: string) => apertium!.translate(t, { from: 'en', to: 'es' });
    expect(await translateWithDictionary('Apple sells phones.', entries, tr)).toContain('Apple Inc.');
    expect(await translateWithDictionary('I eat an apple.', entries, tr)).not.toContain('Apple Inc.');
  });

  it('a sentence that is exactly one dictionary term needs no engine', async () => {
    const g = glossary({ translation_dict: { fr: [{ source: 'good morning', target: 'bonjour à tous' }] } });
    const out = await translateWithDictionary('Good morning', dictionaryFor(g, 'fr'), () => Promise.reject(new Error('not called')));
    expect(out).toBe('bonjour à tous');
  });
});
