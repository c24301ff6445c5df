/**
 * POST /api/v1/broadcasts: every creation rule of the spec's "Broadcast creation body", the
 * creation result, the plan rule (403 plan_feature_not_allowed for plan-bound unlimited
 * keys), and token uniqueness among usable broadcasts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, type TestApp } from '../support/app.js';
import { clock, createBroadcast, expectError, newBroadcast, realKey, startBroadcastApp, VIEWER_LIMIT } from './support.js';

describe.each(backends())('POST /api/v1/broadcasts (%s)', (backend) => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startBroadcastApp(backend, c);
    key = (await realKey(t)).key;
  });
  afterAll(() => t?.close());

  const detail = async (id: string) => (await api(t.url, 'GET', `/api/v1/broadcasts/${id}`, { key })).body.data;

  it('creates a pending broadcast: id, a 4-character a-z0-9 token, share_url (the caption stream), status', async () => {
    const r = await createBroadcast(t, key, { transcription_languages: ['en-US'], translation_languages: ['es'] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(['id', 'share_url', 'status', 'token']);
    const { id, token, share_url, status } = r.body.data;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(token).toMatch(/^[a-z0-9]{4}$/);
    expect(share_url).toBe(`${t.url}/broadcast/${token}/text`);
    expect(status).toBe('pending');
  });

  it('applies the defaults: public, max_viewers = the account viewer limit, summary_language = first transcription language', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['fr', 'en'] });
    expect(await detail(b.id)).toMatchObject({
      id: b.id,
      token: b.token,
      name: null,
      status: 'pending',
      phase: null,
      is_live: false,
      access_type: 'public',
      requires_password: false,
      transcription_languages: ['fr', 'en'],
      translation_languages: ['es', 'fr'],
      speaker_diarization: false,
      max_viewers: VIEWER_LIMIT,
      tts_config: {},
      summary_template: null,
      summary_language: 'fr',
      callback_url: null,
      task_id: null,
      peak_viewers: 0,
      total_viewers: 0,
      started_at: null,
      ended_at: null,
      revoked_at: null,
    });
  });

  it('keeps every accepted setting; normalizes language codes; clamps speaking_rate to 0.5-2.0; shows callback_url without secrets', async () => {
    const b = await newBroadcast(t, key, {
      transcription_languages: ['EN_us'],
      translation_languages: ['es', 'zh-tw', 'es'],
      name: `  ${'話'.repeat(100)}  `,
      access_type: 'password',
      pass_code: 'Ab1!-._~',
      max_viewers: VIEWER_LIMIT,
      speaker_diarization: true,
      tts_config: { es: { voice: 'espeak-es-male-1', speaking_rate: 7 }, 'zh-TW': { speaking_rate: 0.1 }, 'en-US': {} },
      summary_template: 'meeting-minutes',
      summary_language: 'de',
      callback_url: 'https://user:pw@hooks.example.org:8443/broadcast?secret=1#x',
    });
    const d = await detail(b.id);
    expect(d).toMatchObject({
      name: '話'.repeat(100),
      access_type: 'password',
      requires_password: true,
      transcription_languages: ['en-US'],
      translation_languages: ['es', 'zh-TW'],
      speaker_diarization: true,
      max_viewers: VIEWER_LIMIT,
      tts_config: {
        es: { voice: 'espeak-es-male-1', speaking_rate: 2 },
        'zh-TW': { voice: null, speaking_rate: 0.5 },
        'en-US': { voice: null, speaking_rate: 1 },
      },
      summary_template: 'meeting-minutes',
      summary_language: 'de',
      callback_url: 'https://hooks.example.org:8443/broadcast',
    });
    expect(JSON.stringify(d)).not.toContain('Ab1!');
  });

  it('takes the deprecated transcription_language alone, or equal to the first element', async () => {
    const alone = await newBroadcast(t, key, { transcription_languages: undefined, transcription_language: 'en-GB' });
    expect((await detail(alone.id)).transcription_languages).toEqual(['en-GB']);
    const both = await newBroadcast(t, key, { transcription_languages: ['de', 'en'], transcription_language: 'de' });
    expect((await detail(both.id)).transcription_languages).toEqual(['de', 'en']);
    const r = await createBroadcast(t, key, { transcription_languages: ['de', 'en'], transcription_language: 'en' });
    expectError(r, 422, 'validation_failed', 'transcription_language');
  });

  const base = { transcription_languages: ['en-US'] };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no transcription language', { translation_languages: ['es'] }, 'transcription_languages'],
    ['an empty transcription list', { transcription_languages: [] }, 'transcription_languages'],
    ['transcription_languages as a string', { transcription_languages: 'en' }, 'transcription_languages'],
    [
      '11 transcription languages',
      { transcription_languages: ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl'] },
      'transcription_languages',
    ],
    ['a repeated transcription language', { transcription_languages: ['en-US', 'en-us'] }, 'transcription_languages'],
    ['an unknown language code', { transcription_languages: ['xx'] }, 'transcription_languages'],
    ['a path trick as a language', { transcription_languages: ['../../etc'] }, 'transcription_languages'],
    [
      '13 translation languages',
      { ...base, translation_languages: ['de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl', 'cs', 'hu', 'ro'] },
      'translation_languages',
    ],
    ['a translation language that is a number', { ...base, translation_languages: [7] }, 'translation_languages'],
    ['speaker_diarization with two languages', { transcription_languages: ['en', 'de'], speaker_diarization: true }, 'speaker_diarization'],
    ['speaker_diarization as a string', { ...base, speaker_diarization: 'true' }, 'speaker_diarization'],
    ['a name of 101 characters', { ...base, name: 'n'.repeat(101) }, 'name'],
    ['a name that is a number', { ...base, name: 42 }, 'name'],
    ['access_type in capitals', { ...base, access_type: 'Password' }, 'access_type'],
    ['a password channel without pass_code', { ...base, access_type: 'password' }, 'pass_code'],
    ['a pass code of 3 characters', { ...base, access_type: 'password', pass_code: 'abc' }, 'pass_code'],
    ['a pass code of 13 characters', { ...base, access_type: 'password', pass_code: 'abcdefghijklm' }, 'pass_code'],
    ['a pass code with a space', { ...base, access_type: 'password', pass_code: 'ab cd' }, 'pass_code'],
    ['a pass code with Chinese characters', { ...base, access_type: 'password', pass_code: 'abcd密碼' }, 'pass_code'],
    ['a pass code with an emoji', { ...base, access_type: 'password', pass_code: 'abcd🔑' }, 'pass_code'],
    ['a pass code that is a number', { ...base, access_type: 'password', pass_code: 123456 }, 'pass_code'],
    ['a pass code on a public channel', { ...base, pass_code: 'abcd' }, 'pass_code'],
    ['max_viewers 0', { ...base, max_viewers: 0 }, 'max_viewers'],
    ['max_viewers over the account limit', { ...base, max_viewers: VIEWER_LIMIT + 1 }, 'max_viewers'],
    ['max_viewers as a string', { ...base, max_viewers: '5' }, 'max_viewers'],
    ['max_viewers 2.5', { ...base, max_viewers: 2.5 }, 'max_viewers'],
    ['tts_config as an array', { ...base, translation_languages: ['es'], tts_config: [] }, 'tts_config'],
    [
      'a speaking_rate that is a string',
      { ...base, translation_languages: ['es'], tts_config: { es: { speaking_rate: 'fast' } } },
      'tts_config.es.speaking_rate',
    ],
    ['an unknown voice', { ...base, translation_languages: ['es'], tts_config: { es: { voice: 'nobody' } } }, 'tts_config.es.voice'],
    ['an unknown tts_config field', { ...base, translation_languages: ['es'], tts_config: { es: { pitch: 3 } } }, 'tts_config.es.pitch'],
    ['tts_config for a language outside the channel', { ...base, translation_languages: ['es'], tts_config: { de: {} } }, 'tts_config.de'],
    ['an unknown summary template', { ...base, summary_template: 'nope' }, 'summary_template'],
    ['an unsupported summary_language', { ...base, summary_language: 'xx' }, 'summary_language'],
    ['a summary_language over 20 characters', { ...base, summary_language: 'en-US-x-aaaaaaaaaaaaaaaaa' }, 'summary_language'],
    ['a callback_url that is not http', { ...base, callback_url: 'ftp://example.org/x' }, 'callback_url'],
    ['a callback_url that is not a URL', { ...base, callback_url: 'not a url' }, 'callback_url'],
    ['an unknown field', { ...base, broadcast_phase: 'live' }, 'broadcast_phase'],
  ];
  it.each(cases)('422 validation_failed for %s', async (_label, body, field) => {
    expectError(await createBroadcast(t, key, body), 422, 'validation_failed', field);
  });

  it('422 validation_failed for a body that is not a JSON object, or not JSON', async () => {
    expectError(await createBroadcast(t, key, ['en']), 422, 'validation_failed', 'body');
    expectError(await createBroadcast(t, key, '{"transcription_languages": ['), 422, 'validation_failed', 'body');
  });

  it('accepts the bounds: 10 transcription languages, 12 translation languages, max_viewers 1, a 4 and a 12 character pass code', async () => {
    await newBroadcast(t, key, { transcription_languages: ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi'] });
    await newBroadcast(t, key, { translation_languages: ['de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl', 'cs', 'hu'] });
    await newBroadcast(t, key, { max_viewers: 1, access_type: 'password', pass_code: 'a1b2' });
    await newBroadcast(t, key, { access_type: 'password', pass_code: '{[(#@%&*)]}?' });
  });

  it('401 without a key or with an unknown key; nothing is created', async () => {
    expectError(await api(t.url, 'POST', '/api/v1/broadcasts', { body: base }), 401, 'auth_missing_api_key');
    expectError(await createBroadcast(t, 'svc_0000000000000000000000000000000z', base), 401, 'auth_invalid_api_key');
  });

  it('403 plan_feature_not_allowed for plan-bound unlimited keys; unrestricted unlimited and credit keys may create', async () => {
    const planBound = await realKey(t);
    await t.app.deps.plans.setPlan(planBound.accountId, { mode: 'unlimited-plan', planName: 'standard' });
    const r = await createBroadcast(t, planBound.key, base);
    expectError(r, 403, 'plan_feature_not_allowed');
    expect(r.body.data.severity).toBe('fatal');
    const list = await api(t.url, 'GET', '/api/v1/broadcasts', { key: planBound.key });
    expect(list.body.meta.total).toBe(0);
    // The refusal comes before validation: a plan-bound key learns nothing else.
    expectError(await createBroadcast(t, planBound.key, {}), 403, 'plan_feature_not_allowed');

    const unrestricted = await realKey(t);
    await t.app.deps.plans.setPlan(unrestricted.accountId, { mode: 'unlimited' });
    expect((await createBroadcast(t, unrestricted.key, base)).status).toBe(200);
  });

  it('gives every usable broadcast its own token', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 60; i++) tokens.add((await newBroadcast(t, key)).token);
    expect(tokens.size).toBe(60);
  });
});
