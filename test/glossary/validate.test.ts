import { describe, expect, it } from 'vitest';
import { DEFAULT_GLOSSARY_LIMITS, glossaryImportError, glossarySocketError, parseGlossary } from '../../src/glossary/index.js';

const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const codes = (r: ReturnType<typeof parseGlossary>) => (r.ok ? [] : r.problems.map((p) => p.code));

describe('glossary validation (import form fields and WebSocket config)', () => {
  it('accepts the three fields as JSON strings and fills the defaults of both case flags', () => {
    const r = parseGlossary({
      terminology: JSON.stringify({ 'en-us': [{ term: 'Parley' }] }),
      fuzzy_correction: JSON.stringify({ en: [{ correct: 'Kubernetes', incorrect: ['cooper netties'] }] }),
      translation_dict: JSON.stringify({ es: [{ source: 'invoice', target: 'factura' }] }),
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.glossary.terminology['en-US']).toEqual([{ term: 'Parley' }]);
    // Opposite names, same default false, opposite behaviour: never mirrored.
    expect(r.glossary.fuzzyCorrection.en![0]!.case_insensitive).toBe(false);
    expect(r.glossary.translationDict.es![0]!.case_sensitive).toBe(false);
  });

  it('a term over 100 characters gives config_term_too_long with its actual length', () => {
    const r = parseGlossary({ terminology: { en: [{ term: 'x'.repeat(101) }] } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ code: 'config_term_too_long', actual: 101, limit: 100, language: 'en', index: 0 });
  });

  it('fuzzy and dictionary strings over 200 characters are too long', () => {
    const r = parseGlossary({
      fuzzy_correction: { en: [{ correct: 'ok', incorrect: ['y'.repeat(201)] }] },
      translation_dict: { es: [{ source: 'z'.repeat(202), target: 'ok' }] },
    });
    expect(r.ok ? [] : r.problems.map((p) => [p.code, p.actual])).toEqual([
      ['config_term_too_long', 201],
      ['config_term_too_long', 202],
    ]);
  });

  it('more than 500 terms in one language, or 500 across languages, gives config_too_many_entries with the count', () => {
    const one = parseGlossary({ terminology: { en: many(501, (i) => ({ term: `t${i}` })) } });
    expect(one.ok ? null : one.problems.map((p) => p.message)).toEqual([
      'terminology.en has 501 entries; at most 500 are allowed.',
      'terminology (all languages) has 501 entries; at most 500 are allowed.',
    ]);
    const across = parseGlossary({ terminology: { en: many(300, (i) => ({ term: `t${i}` })), fr: many(300, (i) => ({ term: `t${i}` })) } });
    expect(across.ok ? null : across.problems).toEqual([
      expect.objectContaining({ code: 'config_too_many_entries', actual: 600, limit: 500 }),
    ]);
  });

  it('more than 4000 fuzzy rules across languages gives config_too_many_entries', () => {
    const rules = (n: number) => many(n, (i) => ({ correct: `c${i}`, incorrect: [`i${i}`] }));
    const r = parseGlossary({ fuzzy_correction: { en: rules(2500), de: rules(2500) } });
    expect(r.ok ? null : r.problems).toEqual([expect.objectContaining({ code: 'config_too_many_entries', actual: 5000, limit: 4000 })]);
  });

  it('more than 3000 dictionary entries for one target gives config_too_many_dict_entries', () => {
    const r = parseGlossary({ translation_dict: { es: many(3001, (i) => ({ source: `s${i}`, target: `t${i}` })) } });
    expect(r.ok ? null : r.problems).toEqual([
      expect.objectContaining({ code: 'config_too_many_dict_entries', actual: 3001, limit: 3000 }),
    ]);
  });

  it('limits are tunable per environment and the message follows them', () => {
    const r = parseGlossary({ terminology: { en: [{ term: 'abcdef' }] } }, { ...DEFAULT_GLOSSARY_LIMITS, termMaxChars: 5 });
    expect(r.ok ? null : r.problems[0]!.message).toBe('terminology.en[0].term has 6 characters; at most 5 are allowed.');
  });

  it('incorrect may be omitted only for Chinese with Han characters in correct', () => {
    expect(parseGlossary({ fuzzy_correction: { 'zh-TW': [{ correct: '台積電' }] } }).ok).toBe(true);
    expect(parseGlossary({ fuzzy_correction: { 'zh-CN': [{ correct: '深度学习', incorrect: [] }] } }).ok).toBe(true);
    expect(codes(parseGlossary({ fuzzy_correction: { 'zh-TW': [{ correct: 'TSMC' }] } }))).toEqual(['config_invalid_entry']);
    expect(codes(parseGlossary({ fuzzy_correction: { en: [{ correct: 'Parley' }] } }))).toEqual(['config_invalid_entry']);
  });

  it('missing required fields, bad types and bad JSON are config_invalid_entry', () => {
    expect(codes(parseGlossary({ terminology: { en: [{}] } }))).toEqual(['config_invalid_entry']);
    expect(codes(parseGlossary({ translation_dict: { es: [{ source: 'a' }] } }))).toEqual(['config_invalid_entry']);
    expect(codes(parseGlossary({ fuzzy_correction: { en: [{ correct: 'a', incorrect: ['b'], case_insensitive: 'yes' }] } }))).toEqual([
      'config_invalid_entry',
    ]);
    expect(codes(parseGlossary({ terminology: '{not json' }))).toEqual(['config_invalid_entry']);
    expect(codes(parseGlossary({ terminology: { 'not a language!': [] } }))).toEqual(['config_invalid_entry']);
  });

  it('an empty glossary is config_empty', () => {
    expect(codes(parseGlossary({ terminology: {}, fuzzy_correction: { en: [] } }))).toEqual(['config_empty']);
    // Nothing sent at all is not an error: the fields are optional.
    expect(parseGlossary({}).ok).toBe(true);
  });

  it('too many languages and too large a payload have their own codes', () => {
    const langs = Object.fromEntries(
      many(25, (i): [string, unknown] => [
        `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
        [{ term: 'a' }],
      ]),
    );
    expect(codes(parseGlossary({ terminology: langs }))).toEqual(['config_too_many_languages']);
    const big = JSON.stringify({ en: many(400, () => ({ correct: 'c'.repeat(200), incorrect: ['i'.repeat(200)] })) });
    const r = parseGlossary({ fuzzy_correction: big }, { ...DEFAULT_GLOSSARY_LIMITS, maxPayloadBytes: 100_000 });
    expect(r.ok ? null : r.problems[0]).toMatchObject({ code: 'config_payload_too_large', limit: 100_000 });
  });

  it('accepts the older array format of translation_dict', () => {
    const r = parseGlossary({
      translation_dict: JSON.stringify([
        { source: 'invoice', target: 'factura', language: 'es' },
        { source: 'Parley', target: 'Parley' },
      ]),
    });
    expect(r.ok ? r.glossary.translationDict : null).toEqual({
      es: [{ source: 'invoice', target: 'factura', case_sensitive: false }],
      '*': [{ source: 'Parley', target: 'Parley', case_sensitive: false }],
    });
  });

  it('each transport turns problems into its own error: 422 validation_failed for imports, config_* for WebSocket', () => {
    const r = parseGlossary({ terminology: { en: Array.from({ length: 501 }, (_, i) => ({ term: `t${i}` })) } });
    if (r.ok) throw new Error('expected problems');
    const rest = glossaryImportError(r.problems);
    expect([rest.code, rest.status, rest.message]).toEqual([
      'validation_failed',
      422,
      'terminology.en has 501 entries; at most 500 are allowed.',
    ]);
    expect(rest.details).toMatchObject({
      field: 'terminology',
      problems: [{ code: 'config_too_many_entries', actual: 501, limit: 500 }, expect.anything()],
    });
    const ws = glossarySocketError(r.problems);
    expect([ws.code, ws.status]).toEqual(['config_too_many_entries', 400]);
    const big = parseGlossary({ terminology: 'x'.repeat(2000) }, { ...DEFAULT_GLOSSARY_LIMITS, maxPayloadBytes: 1024 });
    if (big.ok) throw new Error('expected problems');
    expect(glossarySocketError(big.problems).status).toBe(413);
  });
});
