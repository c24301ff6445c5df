/**
 * Ad-hoc summary (POST /api/v1/sse/summary), summary translation (POST
 * /api/v1/sse/summary/translate) and summary retranslation (GET
 * /api/v1/sse/retranslate/summary/{taskId}) with the built-in engines (extractive summarizer,
 * Apertium): events, done fields, billing rows and balances, what is saved, and their errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends, type TestApp } from '../support/app.js';
import { type Ev, funded, JFK, MEETING, openStream, seed, startSummaryApp, usageRows } from './support.js';

describe.each(backends())('ad-hoc summary, summary translation and retranslation (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startSummaryApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const names = (events: Ev[]) => events.map((e) => e.event);
  const prices = () => t.app.deps.billing.prices;
  const postSse = async (path: string, key: string, body: unknown) => openStream(`${t.url}${path}`, { method: 'POST', key, body });

  describe('POST /api/v1/sse/summary', () => {
    it('summarizes posted text: connected, summary_regeneration..., done (task_id null, not persisted); billed summary', async () => {
      const f = await funded(t, 100);
      const text = MEETING.join('\n\n');
      const events = await (await postSse('/api/v1/sse/summary', f.key, { text, mode: 'builtin', template: 'action-items' })).all();
      expect(events[0]!.event).toBe('connected');
      expect(names(events).slice(-2)).toEqual(['summary_regeneration', 'done']);
      const done = events.at(-1)!.data;
      expect(done).toEqual({
        task_id: null,
        // The summarizer reads the paragraphs (its segments) one per line.
        tokens_used: { input: [...MEETING.join('\n')].length, output: [...done.final_content].length },
        final_content:
          '## Action items\n- Maria will send the updated launch budget to finance by Friday.\n- John needs to prepare the Portuguese translation of the app store page.\n\n## Open questions\n- Who owns the customer support plan for Portugal?',
        mode: 'builtin',
        template: 'action-items',
        plain_text: false,
        persisted: false,
        summary_language: 'en',
        characters_billed: [...text].length,
        charged: '5.0',
        billed: true,
      });
      expect(await usageRows(t, f.key)).toEqual([
        expect.objectContaining({ task_id: null, type: 'summary', points: prices().oneOff('summary'), refunded: false }),
      ]);
      expect(await t.app.deps.billing.available(f.principal)).toBeCloseTo(100 - prices().oneOff('summary'), 3);
    });

    it('too short: the cleaned text, too_short true, not billed', async () => {
      const f = await funded(t, 100);
      const events = await (
        await postSse('/api/v1/sse/summary', f.key, { text: JFK[0], mode: 'builtin', template: 'general-summary' })
      ).all();
      expect(events.at(-1)!.data).toMatchObject({ too_short: true, persisted: false });
      expect(events.at(-1)!.data).not.toHaveProperty('billed');
      expect(await usageRows(t, f.key)).toEqual([]);
    });

    it('errors: summary_text_empty, summary_text_too_long, sse_template_not_found, mismatch 422, parameter failure, 403 plan', async () => {
      const f = await funded(t, 100);
      const status = async (body: unknown) => {
        const s = await postSse('/api/v1/sse/summary', f.key, body);
        return [s.status, s.json?.data?.error_code];
      };
      expect(await status({ text: '  \n ', mode: 'builtin', template: 'general-summary' })).toEqual([400, 'summary_text_empty']);
      expect(await status({ mode: 'builtin', template: 'general-summary' })).toEqual([400, 'summary_text_empty']);
      expect(await status({ text: 'a'.repeat(200_001), mode: 'builtin', template: 'general-summary' })).toEqual([
        400,
        'summary_text_too_long',
      ]);
      expect(await status({ text: 'Hello.', mode: 'builtin', template: 'nope' })).toEqual([404, 'sse_template_not_found']);
      expect(await status({ text: 'Hello.', mode: 'builtin', template: 'general-summary', prompt: 'x' })).toEqual([
        422,
        'summary_mode_field_mismatch',
      ]);
      const bad = await (await postSse('/api/v1/sse/summary', f.key, { text: 5, mode: 'builtin', template: 'general-summary' })).all();
      expect(bad).toEqual([{ event: 'error', data: { message: 'text must be a string.' } }]);
      const noPlan = await funded(t, 0);
      await t.app.deps.plans.setPlan(noPlan.principal.accountId, { mode: 'unlimited-plan', planName: 'nosummary' });
      const s = await postSse('/api/v1/sse/summary', noPlan.key, { text: MEETING.join(' '), mode: 'builtin', template: 'general-summary' });
      expect([s.status, s.json.data.error_code]).toEqual([403, 'plan_feature_not_allowed']);
      expect(await usageRows(t, f.key)).toEqual([]);
    });
  });

  describe('POST /api/v1/sse/summary/translate', () => {
    it('translates line by line keeping the Markdown structure; billed summary_translate', async () => {
      const f = await funded(t, 100);
      const text = '## Decisions\n- We decided to launch the app in March.\n\n## Next steps\n- Maria will send the budget.';
      const events = await (await postSse('/api/v1/sse/summary/translate', f.key, { text, targetLang: 'es', sourceLang: 'en' })).all();
      expect(events[0]!.event).toBe('connected');
      const parts = events.filter((e) => e.event === 'summary_translation');
      expect(parts.length).toBeGreaterThanOrEqual(3);
      expect(parts.at(-1)!.data.is_final).toBe(true);
      const done = events.at(-1)!;
      expect(done.event).toBe('done');
      const lines = done.data.final_content.split('\n');
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatch(/^## /);
      expect(lines[1]).toMatch(/^- Decidimos lanzar la aplicación/);
      expect(lines[2]).toBe('');
      expect(lines[4]).toMatch(/^- .*Maria/);
      expect(done.data).toMatchObject({
        source_language: 'en',
        target_language: 'es',
        persisted: false,
        characters_billed: [...text].length,
        charged: '1.0',
        billed: true,
      });
      expect(await usageRows(t, f.key)).toEqual([
        expect.objectContaining({ task_id: null, type: 'summary_translate', points: prices().oneOff('summary_translate') }),
      ]);
    });

    it('errors: translation_language_unsupported (422), summary_text_empty, targetLang missing as a parameter failure', async () => {
      const f = await funded(t, 100);
      const none = await postSse('/api/v1/sse/summary/translate', f.key, { text: 'Hello.', targetLang: 'ja', sourceLang: 'en' });
      expect([none.status, none.json.data.error_code]).toEqual([422, 'translation_language_unsupported']);
      const empty = await postSse('/api/v1/sse/summary/translate', f.key, { text: '', targetLang: 'es' });
      expect([empty.status, empty.json.data.error_code]).toEqual([400, 'summary_text_empty']);
      const missing = await (await postSse('/api/v1/sse/summary/translate', f.key, { text: 'Hello.' })).all();
      expect(missing).toEqual([{ event: 'error', data: { message: 'targetLang is required.' } }]);
      expect(await usageRows(t, f.key)).toEqual([]);
    });
  });

  describe('GET /api/v1/sse/retranslate/summary/{taskId}', () => {
    it('translates the stored summary and saves it in its place (language, revision + 1); billed summary_translate', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      const regen = await (
        await openStream(`${t.url}/api/v1/sse/regenerate/summary/${task.taskId}`, {
          method: 'POST',
          key: f.key,
          body: { mode: 'builtin', template: 'action-items' },
        })
      ).all();
      const original = regen.at(-1)!.data.final_content as string;
      const before = (await t.app.deps.tasks.store.getTranscript(task.taskId))!.revision;
      const events = await (await openStream(`${t.url}/api/v1/sse/retranslate/summary/${task.taskId}?targetLang=es`, { key: f.key })).all();
      const done = events.at(-1)!;
      expect(done.event).toBe('done');
      expect(done.data).toMatchObject({
        task_id: task.taskId,
        source_language: 'en-US',
        target_language: 'es',
        persisted: true,
        charged: '1.0',
        billed: true,
      });
      expect(done.data.final_content.split('\n').length).toBe(original.split('\n').length);
      expect(done.data.final_content).not.toBe(original);
      const tr = await t.app.deps.tasks.store.getTranscript(task.taskId);
      expect(tr?.revision).toBe(before + 1);
      expect(tr?.summary).toMatchObject({ text: done.data.final_content, language: 'es', mode: 'builtin', template: 'action-items' });
      expect((await usageRows(t, f.key)).map((r) => r.type)).toEqual(['summary_translate', 'regen_summary']);
    });

    it('errors: recording_not_found, sse_transcript_not_found without a summary, record_translation_not_allowed, same language', async () => {
      const f = await funded(t, 100);
      const get = (id: string, q = '?targetLang=es') => openStream(`${t.url}/api/v1/sse/retranslate/summary/${id}${q}`, { key: f.key });
      const other = await funded(t, 100);
      const foreign = await seed(t, other.principal, MEETING);
      expect((await get(foreign.taskId)).json.data.error_code).toBe('recording_not_found');
      const noSummary = await seed(t, f.principal, MEETING);
      const ns = await get(noSummary.taskId);
      expect([ns.status, ns.json.data.error_code]).toEqual([404, 'sse_transcript_not_found']);
      const record = await seed(t, f.principal, MEETING, { type: 'record' });
      await t.app.deps.tasks.store.setSummary(record.taskId, {
        text: 'A note.',
        language: 'en',
        mode: 'builtin',
        template: 'general-summary',
        plainText: false,
      });
      const rec = await get(record.taskId);
      expect([rec.status, rec.json.data.error_code]).toEqual([400, 'record_translation_not_allowed']);
      const same = await seed(t, f.principal, MEETING);
      await t.app.deps.tasks.store.setSummary(same.taskId, {
        text: 'A note.',
        language: 'es',
        mode: 'builtin',
        template: 'general-summary',
        plainText: false,
      });
      expect(await (await get(same.taskId)).all()).toEqual([{ event: 'error', data: { message: 'The summary is already in es.' } }]);
      expect(await (await get(same.taskId, '')).all()).toEqual([{ event: 'error', data: { message: 'targetLang is required.' } }]);
      expect(await usageRows(t, f.key)).toEqual([]);
    });
  });

  it('the summary endpoints are in the OpenAPI document with their events', async () => {
    const r = await api(t.url, 'GET', '/api/v1/openapi.json');
    const paths = r.body.paths as Record<string, Record<string, { summary?: string; description?: string }>>;
    expect(paths['/api/v1/sse/regenerate/summary/{taskId}']!.get!.description).toContain('summary_regeneration');
    expect(paths['/api/v1/sse/regenerate/summary/{taskId}']!.post!.description).toContain('transcript_revision_conflict');
    expect(paths['/api/v1/sse/summary']!.post!.summary).toBe('Ad-hoc summary of posted text');
    expect(paths['/api/v1/sse/summary/translate']!.post!.description).toContain('summary_translation');
    expect(paths['/api/v1/sse/retranslate/summary/{taskId}']!.get!.description).toContain('saves it in its place');
  });
});
