/** POST /api/v1/glossary/validate over HTTP with a real key, on every backend. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realKey } from '../billing/support.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';

describe.each(backends())('POST /api/v1/glossary/validate (%s)', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ backend, env: { PARLEY_GLOSSARY_MAX_LANGUAGES: '2', PARLEY_GLOSSARY_MAX_BYTES: '4000' } });
    key = (await realKey(t)).key;
  });
  afterAll(() => t?.close());
  const validate = (body: unknown, k: string | undefined = key) => api(t.url, 'POST', '/api/v1/glossary/validate', { key: k, body });

  it('a valid glossary: counts, languages and the conflicts the apply rules would resolve', async () => {
    const r = await validate({
      terminology: JSON.stringify({ en: [{ term: 'Parley' }, { term: 'PARLEY' }] }),
      fuzzy_correction: {
        en: [
          { correct: 'Kubernetes', incorrect: ['cooper netties'] },
          { correct: 'Cubernetes', incorrect: ['Cooper Netties', 'kube'] },
          { correct: 'kube', incorrect: ['cube'] },
        ],
      },
      translation_dict: {
        es: [
          { source: 'invoice', target: 'factura' },
          { source: 'Invoice', target: 'cuenta' },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ valid: true, terminology: 2, fuzzy_correction: 3, translation_dict: 2, languages: ['en', 'es'] });
    const kinds = r.body.data.conflicts.map((c: { kind: string }) => c.kind).sort();
    expect(kinds).toEqual(['correction_chain', 'dictionary_collision', 'duplicate_term', 'variant_collision']);
    expect(r.body.data.conflicts).toContainEqual({
      kind: 'variant_collision',
      field: 'fuzzy_correction',
      language: 'en',
      value: 'cooper netties',
      indexes: [0, 1],
      candidates: ['Kubernetes', 'Cubernetes'],
    });
  });

  it('reports the config_* code of the first problem with every problem in details', async () => {
    const tooLong = await validate({ terminology: { en: [{ term: 'x'.repeat(101) }, { term: '' }] } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.data).toMatchObject({ error_code: 'config_term_too_long', severity: 'error' });
    expect(tooLong.body.data.details.problems.map((p: { code: string }) => p.code)).toEqual([
      'config_term_too_long',
      'config_invalid_entry',
    ]);
    const langs = await validate({ terminology: { en: ['a'], fr: ['b'], de: ['c'] } });
    expect(langs.status).toBe(400);
    expect(langs.body.data.error_code).toBe('config_too_many_languages');
    const empty = await validate({});
    expect(empty.status).toBe(400);
    expect(empty.body.data.error_code).toBe('config_empty');
    const dict = await validate({ translation_dict: { es: Array.from({ length: 3001 }, (_, i) => ({ source: `s${i}`, target: 't' })) } });
    expect(dict.status).toBe(413); // over 4000 bytes before the entry count is looked at
    expect(dict.body.data.error_code).toBe('config_payload_too_large');
  });

  it('a payload over the limit is 413 config_payload_too_large, also when far over', async () => {
    const r = await validate({
      terminology: { en: [{ term: 'a'.repeat(90) }] },
      translation_dict: { es: [{ source: 'a', target: 'b'.repeat(5000) }] },
    });
    expect(r.status).toBe(413);
    expect(r.body.data).toMatchObject({ error_code: 'config_payload_too_large', details: { limit: 4000 } });
    const huge = await validate({ terminology: { en: [{ term: 'a'.repeat(200_000) }] } });
    expect(huge.status).toBe(413);
    expect(huge.body.data.error_code).toBe('config_payload_too_large');
  });

  it('needs a valid key; a non-object body is validation_failed', async () => {
    const noKey = await validate({ terminology: { en: ['a'] } }, '');
    expect([noKey.status, noKey.body.data.error_code]).toEqual([401, 'auth_missing_api_key']);
    const arr = await validate([1, 2]);
    expect(arr.status).toBe(422);
    expect(arr.body.data.error_code).toBe('validation_failed');
  });
});
