/**
 * Sentence corrections over REST, end to end on both databases: real HTTP, Apertium (en -> es)
 * retranslating the corrected text, exports, the history SSE and search reading the stored
 * transcript. Every refusal is provoked for its code and status and checked to change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { Translator } from '../../src/engines/types.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { type Account, engineFrom, fundedAccount, seedTask } from '../support/seeded-tasks.js';
import { readSse } from '../tasks/harness.js';

const ES = { 1: 'La casa es grande.', 2: 'Mi hermano come una manzana.', 3: 'Vivimos en una ciudad pequeña.' };

describe.each(backends())('sentence corrections over REST (%s)', (backend) => {
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

  const patch = (a: Account, taskId: string, sid: number | string, body: unknown) =>
    api(t.url, 'PATCH', `/api/v1/tasks/${taskId}/sentences/${sid}`, { key: a.key, body });
  const undo = (a: Account, taskId: string, sid: number, body: unknown = {}) =>
    api(t.url, 'POST', `/api/v1/tasks/${taskId}/sentences/${sid}/undo`, { key: a.key, body });
  const exportText = async (a: Account, taskId: string, query = '') => {
    const r = await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export${query}`, { headers: { 'x-api-key': a.key } });
    expect(r.status).toBe(200);
    return r.text();
  };
  const search = async (a: Account, q: string) =>
    (
      (await api(t.url, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`, { key: a.key })).body.data as Array<{
        task_id: string;
        sid: number;
      }>
    ).map((h) => `${h.task_id}#${h.sid}`);
  const credit = async (a: Account) => (await api(t.url, 'GET', '/api/v1/me/plan', { key: a.key })).body.data.available_credit;

  it('a correction is retranslated, billed as one sentence, and reaches history, exports and search; undo restores it', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a, { es: ES });
    const r = await patch(a, taskId, 2, { text: '  My sister eats\na pear. ', revision: 0 });
    expect(r.status).toBe(200);
    const spanish = await apertium.translate('My sister eats a pear.', { from: 'en', to: 'es' });
    expect(spanish).toMatch(/hermana/i);
    expect(r.body.data).toEqual({
      task_id: taskId,
      sid: 2,
      revision: 1,
      kind: 'correction',
      text: 'My sister eats a pear.',
      previous_text: 'My brother eats an apple.',
      translations: { es: spanish },
      translation_errors: {},
      speaker_id: null,
      start_time: '00:01',
      charged: 0.25,
    });
    expect(await credit(a)).toBe(9.75);
    const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: a.key })).body.data as Array<Record<string, unknown>>;
    expect(usage.filter((u) => u.type === 'retranslate')).toEqual([expect.objectContaining({ task_id: taskId, points: 0.25 })]);

    // History, both exports and search read the corrected sentence.
    const h = await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { 'x-api-key': a.key });
    const sentences = h.events
      .filter((e) => e.event === 'init_sentence')
      .map((e) => e.data as { sid: number; origin: string; translations: Record<string, string> });
    expect(sentences[1]).toMatchObject({ sid: 2, origin: 'My sister eats a pear.', translations: { es: spanish } });
    expect(await exportText(a, taskId)).toContain('My sister eats a pear.');
    expect(await exportText(a, taskId)).not.toContain('brother');
    expect(await exportText(a, taskId, '?format=srt&language=es')).toContain(spanish);
    expect(await search(a, 'pear')).toEqual([`${taskId}#2`]);
    expect(await search(a, 'brother')).toEqual([]);

    // The history of the sentence: as recognized, then the correction.
    const revs = await api(t.url, 'GET', `/api/v1/tasks/${taskId}/sentences/2/revisions`, { key: a.key });
    expect(revs.status).toBe(200);
    expect(revs.body.data.revisions.map((x: { revision: number; kind: string; text: string }) => [x.revision, x.kind, x.text])).toEqual([
      [0, 'recognized', 'My brother eats an apple.'],
      [1, 'correction', 'My sister eats a pear.'],
    ]);

    // Undo: the recognized text and its stored translation again, free of charge.
    const u = await undo(a, taskId, 2, { revision: 1 });
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({
      revision: 2,
      kind: 'undo',
      text: 'My brother eats an apple.',
      previous_text: 'My sister eats a pear.',
      translations: { es: ES[2] },
      charged: 0,
    });
    expect(await credit(a)).toBe(9.75);
    expect(await exportText(a, taskId)).toContain('My brother eats an apple.');
    expect(await exportText(a, taskId, '?language=es')).toContain(ES[2]);
    expect(await search(a, 'brother')).toEqual([`${taskId}#2`]);
    expect(await search(a, 'pear')).toEqual([]);
    // Nothing older to go back to.
    const again = await undo(a, taskId, 2);
    expect(again.status).toBe(409);
    expect(again.body.data.error_code).toBe('sentence_nothing_to_undo');
  });

  it('repeated corrections undo one step at a time', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    expect((await patch(a, taskId, 1, { text: 'The house is red.' })).body.data.revision).toBe(1);
    expect((await patch(a, taskId, 1, { text: 'The house is blue.' })).body.data.revision).toBe(2);
    // No translation languages: nothing to retranslate, nothing charged.
    expect(await credit(a)).toBe(10);
    expect((await undo(a, taskId, 1)).body.data).toMatchObject({ revision: 3, text: 'The house is red.' });
    expect((await undo(a, taskId, 1)).body.data).toMatchObject({ revision: 4, text: 'The house is big.' });
    expect((await undo(a, taskId, 1)).status).toBe(409);
    // Reprocessing rebuilds the sentences: their corrections go with them.
    await t.app.deps.tasks.store.resetTranscript(taskId);
    await t.app.deps.tasks.store.appendSentences(taskId, [{ sid: 1, origin: 'Heard again.', startMs: 0, endMs: 900 }]);
    const revs = await api(t.url, 'GET', `/api/v1/tasks/${taskId}/sentences/1/revisions`, { key: a.key });
    expect(revs.body.data).toMatchObject({ revision: 0, text: 'Heard again.', revisions: [] });
  });

  it('refusals: each code with its status, and nothing changed', async () => {
    const a = await fundedAccount(t, 10);
    const other = await fundedAccount(t, 10, 'someone else');
    const taskId = await seedTask(t, a, { es: ES });
    // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies freely
    const expectError = async (p: Promise<{ status: number; body: any }>, status: number, code: string, field?: string) => {
      const r = await p;
      expect([r.status, r.body.data?.error_code]).toEqual([status, code]);
      if (field) expect(r.body.data.details.field).toBe(field);
    };
    await expectError(patch(a, taskId, 99, { text: 'Hello.' }), 404, 'sentence_not_found');
    await expectError(patch(a, taskId, 1, { text: ' \n\t ' }), 422, 'sentence_text_empty', 'text');
    await expectError(patch(a, taskId, 1, { text: 'x'.repeat(2001) }), 422, 'sentence_text_too_long', 'text');
    await expectError(patch(a, taskId, 1, {}), 422, 'validation_failed', 'text');
    await expectError(patch(a, taskId, 1, { text: 'Hi.', revision: -1 }), 422, 'validation_failed', 'revision');
    await expectError(patch(a, taskId, 'one', { text: 'Hi.' }), 422, 'validation_failed', 'sid');
    await expectError(patch(other, taskId, 1, { text: 'Not mine.' }), 404, 'recording_not_found');
    await expectError(patch({ ...a, key: `svc_${'x'.repeat(32)}` }, taskId, 1, { text: 'Hi.' }), 401, 'auth_invalid_api_key');
    await expectError(undo(a, taskId, 1), 409, 'sentence_nothing_to_undo');
    const live = await seedTask(t, a, { status: 'processing' });
    await expectError(patch(a, live, 1, { text: 'Too early.' }), 422, 'invalid_processing_status');

    // A stale revision: the client edited revision 0, the sentence is at 1 now.
    expect((await patch(a, taskId, 3, { text: 'We live in a big town.', revision: 0 })).status).toBe(200);
    await expectError(patch(a, taskId, 3, { text: 'We live in a city.', revision: 0 }), 409, 'sentence_revision_conflict');
    await expectError(undo(a, taskId, 3, { revision: 0 }), 409, 'sentence_revision_conflict');

    // No credit: the correction is refused before anything is written.
    const broke = await fundedAccount(t, 0, 'no credit');
    const poor = await seedTask(t, broke, { es: ES });
    await expectError(patch(broke, poor, 1, { text: 'The house is small.' }), 402, 'auth_insufficient_credit');

    const h = await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { 'x-api-key': a.key });
    const origins = h.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { origin: string }).origin);
    expect(origins).toEqual(['The house is big.', 'My brother eats an apple.', 'We live in a big town.']);
    const p = await readSse(`${t.url}/api/v1/sse/history/transcribe/${poor}`, { 'x-api-key': broke.key });
    expect(p.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { origin: string }).origin)[0]).toBe(
      'The house is big.',
    );
  });

  it('two corrections of the same revision at once: exactly one is stored, the other is told 409', async () => {
    const a = await fundedAccount(t, 10);
    const taskId = await seedTask(t, a);
    const results = await Promise.all([
      patch(a, taskId, 1, { text: 'First.', revision: 0 }),
      patch(a, taskId, 1, { text: 'Second.', revision: 0 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!.body.data.text;
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body.data.error_code).toBe('sentence_revision_conflict');
    expect(await exportText(a, taskId)).toContain(winner);
  });
});
