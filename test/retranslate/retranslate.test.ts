/**
 * Retranslation SSE end to end: real HTTP SSE clients, real database, Apertium (en -> es, ca)
 * for the translations; per-sentence and total failures through the remote translator against
 * the local OpenAI-compatible test server (its content filter refuses marked sentences).
 * Every refusal is checked for its code and status, and for charging nothing; successes for
 * the usage row and the balance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranslatorFactory } from '../../src/engines/remote/openai-translator.js';
import type { Translator } from '../../src/engines/types.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { type Account, engineFrom, fundedAccount, SENTENCES, seedTask } from '../support/seeded-tasks.js';
import { readSse as readEvents } from '../tasks/harness.js';

/** The whole SSE response; payloads read freely. */
async function readSse(url: string, headers: Record<string, string> = {}) {
  const r = await readEvents(url, headers);
  // biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
  return { ...r, events: r.events as Array<{ event: string; data: any }> };
}

const credit = async (t: TestApp, a: Account) => (await api(t.url, 'GET', '/api/v1/me/plan', { key: a.key })).body.data.available_credit;
const usage = async (t: TestApp, a: Account) =>
  (await api(t.url, 'GET', '/api/v1/me/usage?per_page=20', { key: a.key })).body.data as Array<Record<string, unknown>>;
const history = async (t: TestApp, a: Account, taskId: string) =>
  (await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { 'x-api-key': a.key })).events;

describe.each(backends())('retranslation SSE with Apertium (%s)', (backend) => {
  let t: TestApp;
  let apertium: Translator;
  beforeAll(async () => {
    apertium = (await engineFrom(apertiumFactory)) as Translator;
    t = await startTestApp({
      backend,
      engines: EngineRegistry.fromEngines([apertium]),
      env: { PARLEY_PRICE_RETRANSLATE: '3', PARLEY_PRICE_RETRANSLATE_SENTENCE: '0.25' },
    });
  }, 60_000);
  afterAll(() => t?.close());

  it('full text: translation per sentence in sid order, done {totalUpdated}; saved, listed, billed once', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    const r = await readSse(`${t.url}/api/v1/sse/retranslate/${taskId}?targetLang=es`, { 'x-api-key': a.key });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.events.map((e) => e.event)).toEqual(['translation', 'translation', 'translation', 'done']);
    const expected = await Promise.all(SENTENCES.map((s) => apertium.translate(s.origin, { from: 'en', to: 'es' })));
    expect(r.events.slice(0, 3).map((e) => e.data)).toEqual(expected.map((text, i) => ({ sid: i + 1, text, is_final: true })));
    expect(expected[0]).toMatch(/casa/i);
    expect(r.events[3]!.data).toEqual({ totalUpdated: 3, totalFailed: 0 });

    // Saved: history shows the Spanish text and lists es among the translation languages.
    const h = await history(t, a, taskId);
    expect(h.find((e) => e.event === 'init_metadata')!.data.translation_languages).toEqual(['es']);
    expect(h.filter((e) => e.event === 'init_sentence').map((e) => e.data.translations?.es)).toEqual(expected);

    // Billed: one retranslate row of 3 points, the balance 10 -> 7.
    const rows = (await usage(t, a)).filter((u) => u.type === 'retranslate');
    expect(rows).toEqual([
      expect.objectContaining({ task_id: taskId, type: 'retranslate', points: 3, refunded: false, in_progress: false }),
    ]);
    expect(await credit(t, a)).toBe(7);
  });

  it('single sentence: only that sentence, billed per sentence; api_key in the query works', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    const r = await readSse(`${t.url}/api/v1/sse/recordings/${taskId}/entries/2/retranslate?targetLang=ca&api_key=${a.key}`);
    expect(r.status).toBe(200);
    const catalan = await apertium.translate(SENTENCES[1]!.origin, { from: 'en', to: 'ca' });
    expect(r.events).toEqual([
      { event: 'translation', data: { sid: 2, text: catalan, is_final: true } },
      { event: 'done', data: { totalUpdated: 1, totalFailed: 0 } },
    ]);
    const sentences = (await history(t, a, taskId)).filter((e) => e.event === 'init_sentence').map((e) => e.data);
    expect(sentences.map((s) => s.translations?.ca ?? null)).toEqual([null, catalan, null]);
    expect((await usage(t, a)).filter((u) => u.type === 'retranslate')).toEqual([expect.objectContaining({ points: 0.25 })]);
    expect(await credit(t, a)).toBe(9.75);
  });

  it('refusals before the stream: each code and status, nothing charged', async () => {
    const a = await fundedAccount(t, 10);
    const other = await fundedAccount(t, 10);
    const ok = await seedTask(t, a);
    const record = await seedTask(t, a, { type: 'record' });
    const busy = await seedTask(t, a, { status: 'processing' });
    const empty = await seedTask(t, a, { sentences: [] });
    const foreign = await seedTask(t, other);
    const get = async (path: string, key: string | null = a.key) => {
      const res = await fetch(`${t.url}${path}`, key ? { headers: { 'x-api-key': key } } : {});
      expect(res.headers.get('content-type')).toContain('application/json');
      return { status: res.status, body: (await res.json()) as { data: { error_code: string; details: Record<string, unknown> } } };
    };
    const cases: Array<[string, string | null, number, string]> = [
      [`/api/v1/sse/retranslate/${ok}?targetLang=es`, null, 401, 'auth_missing_api_key'],
      [`/api/v1/sse/retranslate/${foreign}?targetLang=es`, a.key, 404, 'recording_not_found'],
      [`/api/v1/sse/retranslate/not-a-uuid?targetLang=es`, a.key, 404, 'recording_not_found'],
      [`/api/v1/sse/retranslate/${record}?targetLang=es`, a.key, 400, 'record_translation_not_allowed'],
      [`/api/v1/sse/recordings/${record}/entries/1/retranslate?targetLang=es`, a.key, 400, 'record_translation_not_allowed'],
      [`/api/v1/sse/retranslate/${busy}?targetLang=es`, a.key, 422, 'invalid_processing_status'],
      [`/api/v1/sse/retranslate/${ok}`, a.key, 422, 'validation_failed'],
      [`/api/v1/sse/retranslate/${ok}?targetLang=not%20a%20language`, a.key, 422, 'validation_failed'],
      [`/api/v1/sse/recordings/${ok}/entries/0/retranslate?targetLang=es`, a.key, 422, 'validation_failed'],
      [`/api/v1/sse/recordings/${ok}/entries/abc/retranslate?targetLang=es`, a.key, 422, 'validation_failed'],
      [`/api/v1/sse/retranslate/${ok}?targetLang=ja`, a.key, 422, 'translation_language_unsupported'],
      [`/api/v1/sse/retranslate/${empty}?targetLang=es`, a.key, 404, 'sse_transcript_not_found'],
      [`/api/v1/sse/recordings/${ok}/entries/99/retranslate?targetLang=es`, a.key, 404, 'sse_sentence_not_found'],
    ];
    for (const [path, key, status, code] of cases) {
      const r = await get(path, key);
      expect({ path, status: r.status, code: r.body.data.error_code }).toEqual({ path, status, code });
    }
    expect((await get(`/api/v1/sse/retranslate/${ok}`)).body.data.details).toMatchObject({ field: 'targetLang' });
    expect((await get(`/api/v1/sse/retranslate/${ok}?targetLang=ja`)).body.data.details).toMatchObject({
      source_lang: 'en-US',
      translation_language: 'ja',
    });
    expect(await usage(t, a)).toEqual([]);
    expect(await credit(t, a)).toBe(10);
  });

  it('credit and plans: 402 auth_insufficient_credit, 402 auth_quota_exceeded, 403 plan_feature_not_allowed, 0 points when the plan includes it', async () => {
    const get = (path: string, key: string) => api(t.url, 'GET', path, { key });
    const broke = await fundedAccount(t, 0);
    const brokeTask = await seedTask(t, broke);
    const r1 = await get(`/api/v1/sse/retranslate/${brokeTask}?targetLang=es`, broke.key);
    expect([r1.status, r1.body.data.error_code]).toEqual([402, 'auth_insufficient_credit']);

    const short = await fundedAccount(t, 1);
    const shortTask = await seedTask(t, short);
    const r2 = await get(`/api/v1/sse/retranslate/${shortTask}?targetLang=es`, short.key);
    expect([r2.status, r2.body.data.error_code]).toEqual([402, 'auth_quota_exceeded']);
    expect(r2.body.data.details).toMatchObject({ budget_scope: 'account_credit', remaining_budget: 1 });
    expect(await usage(t, short)).toEqual([]);
    expect(await credit(t, short)).toBe(1);
    // One sentence costs less than the balance: allowed.
    const r3 = await readSse(`${t.url}/api/v1/sse/recordings/${shortTask}/entries/1/retranslate?targetLang=es`, { 'x-api-key': short.key });
    expect(r3.events.at(-1)).toEqual({ event: 'done', data: { totalUpdated: 1, totalFailed: 0 } });
    expect(await credit(t, short)).toBe(0.75);

    // Plan-bound unlimited: full text needs the one-off feature; a single sentence does not.
    const trial = await fundedAccount(t, 0);
    await t.app.deps.plans.setPlan(trial.accountId, { mode: 'unlimited-plan', planName: 'trial', expiresAt: null });
    const trialTask = await seedTask(t, trial);
    const r4 = await get(`/api/v1/sse/retranslate/${trialTask}?targetLang=es`, trial.key);
    expect([r4.status, r4.body.data.error_code]).toEqual([403, 'plan_feature_not_allowed']);
    expect(r4.body.data.details).toMatchObject({ field: 'retranslate', plan: 'trial' });
    const r5 = await readSse(`${t.url}/api/v1/sse/recordings/${trialTask}/entries/1/retranslate?targetLang=es`, { 'x-api-key': trial.key });
    expect(r5.events.at(-1)!.event).toBe('done');
    expect((await usage(t, trial)).map((u) => [u.type, u.points])).toEqual([['retranslate', 0]]);

    const standard = await fundedAccount(t, 0);
    await t.app.deps.plans.setPlan(standard.accountId, { mode: 'unlimited-plan', planName: 'standard', expiresAt: null });
    const standardTask = await seedTask(t, standard);
    const r6 = await readSse(`${t.url}/api/v1/sse/retranslate/${standardTask}?targetLang=es`, { 'x-api-key': standard.key });
    expect(r6.events.at(-1)).toEqual({ event: 'done', data: { totalUpdated: 3, totalFailed: 0 } });
    expect((await usage(t, standard)).map((u) => [u.type, u.points])).toEqual([['retranslate', 0]]);
  });
});

describe.each(backends())('retranslation failures through the remote translator (%s)', (backend) => {
  let t: TestApp;
  let llm: OpenAiServer;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    // The server "translates" by echoing the sentence in brackets; its content filter refuses marked sentences.
    llm.reply = (messages) => `[${messages.at(-1)?.content.split('\n').at(-1) ?? ''}]`;
    const translator = await engineFrom(openAiTranslatorFactory, { PARLEY_REMOTE_LLM_URL: llm.url, PARLEY_REMOTE_RETRIES: '0' });
    t = await startTestApp({ backend, engines: EngineRegistry.fromEngines([translator]), env: { PARLEY_PRICE_RETRANSLATE: '3' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('a sentence that fails is an error event with its sid and a translation_errors entry; the rest is saved and billed', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a, {
      sentences: [SENTENCES[0]!, { ...SENTENCES[1]!, origin: 'This one says FORBIDDEN.' }, SENTENCES[2]!],
    });
    llm.filterWords = ['FORBIDDEN'];
    const r = await readSse(`${t.url}/api/v1/sse/retranslate/${taskId}?targetLang=de`, { 'x-api-key': a.key });
    llm.filterWords = [];
    expect(r.events.map((e) => [e.event, e.data.sid])).toEqual([
      ['translation', 1],
      ['error', 2],
      ['translation', 3],
      ['done', undefined],
    ]);
    expect(r.events[1]!.data).toMatchObject({ error_code: 'translation_failed', sid: 2, details: { translation_language: 'de' } });
    expect(r.events[3]!.data).toEqual({ totalUpdated: 2, totalFailed: 1 });
    const sentences = (await history(t, a, taskId)).filter((e) => e.event === 'init_sentence').map((e) => e.data);
    expect(sentences[1]).toMatchObject({ translation_errors: { de: 'translation_failed' } });
    expect(sentences[1].translations?.de).toBeUndefined();
    expect(sentences[0].translations.de).toEqual(expect.any(String));
    expect(await credit(t, a)).toBe(7);
  });

  it('when no sentence can be translated: error events, a final translation_failed instead of done, refunded', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    llm.filterWords = [''];
    const r = await readSse(`${t.url}/api/v1/sse/retranslate/${taskId}?targetLang=de`, { 'x-api-key': a.key });
    llm.filterWords = [];
    expect(r.events.map((e) => e.event)).toEqual(['error', 'error', 'error', 'error']);
    expect(r.events.at(-1)!.data).toMatchObject({ error_code: 'translation_failed', details: { translation_language: 'de', failed: 3 } });
    expect(r.events.at(-1)!.data.sid).toBeUndefined();
    expect((await usage(t, a)).map((u) => [u.type, u.refunded])).toEqual([['retranslate', true]]);
    expect(await credit(t, a)).toBe(10);
    const h = await history(t, a, taskId);
    expect(h.find((e) => e.event === 'init_metadata')!.data.translation_languages).toEqual([]);
  });
});
