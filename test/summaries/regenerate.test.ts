/**
 * GET (preview) and POST (persist) /api/v1/sse/regenerate/summary/{taskId} with the built-in
 * extractive summarizer: events, done fields, billing rows and balances, what is saved, and
 * every error the spec lists for the endpoint that needs no LLM (the LLM ones: llm.test.ts).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { backends } from '../support/app.js';
import { type Ev, funded, JFK, MEETING, openStream, seed, startSummaryApp, usageRows } from './support.js';

describe.each(backends())('regenerate summary over SSE, built-in tier (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startSummaryApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const url = (taskId: string, query = '') => `${t.url}/api/v1/sse/regenerate/summary/${taskId}${query}`;
  const price = () => t.app.deps.billing.prices.oneOff('regen_summary');
  const balance = (f: { principal: Parameters<TestApp['app']['deps']['billing']['available']>[0] }) =>
    t.app.deps.billing.available(f.principal);
  const names = (events: Ev[]) => events.map((e) => e.event);

  it('GET previews: connected, summary_regeneration (cumulative, last final), done with every field; billed, nothing saved', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const s = await openStream(url(task.taskId, '?mode=builtin&template=meeting-minutes'), { key: f.key });
    expect(s.status).toBe(200);
    const events = await s.all();
    expect(events[0]).toEqual({ event: 'connected', data: { message: 'connected' } });
    const texts = events.filter((e) => e.event === 'summary_regeneration');
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.slice(0, -1).every((e) => e.data.is_final === false)).toBe(true);
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.data.text.startsWith(texts[i - 1]!.data.text)).toBe(true);
    const final = texts.at(-1)!.data;
    expect(final.is_final).toBe(true);
    expect(names(events).slice(-2)).toEqual(['summary_regeneration', 'done']);
    const done = events.at(-1)!.data;
    expect(done).toEqual({
      task_id: task.taskId,
      tokens_used: { input: expect.any(Number), output: [...final.text].length },
      final_content: final.text,
      mode: 'builtin',
      template: 'meeting-minutes',
      plain_text: false,
      persisted: false,
      summary_language: 'en-US',
      characters_billed: [...MEETING.join('\n')].length,
      charged: '5.0',
      billed: true,
    });
    // Sections only where the text supports them: decisions and next steps, no Participants, no "(none noted)".
    expect(final.text).toContain('## Decisions\n- After some discussion we decided to launch the mobile app in Portugal in March.');
    expect(final.text).toContain('## Next steps\n- Maria will send the updated launch budget to finance by Friday.');
    expect(final.text).not.toContain('none noted');
    expect(final.text).not.toContain('Participants');
    expect(final.text).not.toContain('the the');
    expect(final.text).not.toMatch(/\bUm\b/);
    // Billed once (regen_summary at the price), nothing saved.
    const rows = await usageRows(t, f.key);
    expect(rows).toEqual([expect.objectContaining({ task_id: task.taskId, type: 'regen_summary', points: price(), refunded: false })]);
    expect(await balance(f)).toBeCloseTo(100 - price(), 3);
    const tr = await t.app.deps.tasks.store.getTranscript(task.taskId);
    expect(tr?.summary ?? null).toBeNull();
  });

  it('POST persists: mode, template, text, revision + 1, summary language; history shows it; billed once', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const before = (await t.app.deps.tasks.store.getTranscript(task.taskId))?.revision ?? 0;
    const s = await openStream(url(task.taskId), {
      method: 'POST',
      key: f.key,
      body: { mode: 'builtin', template: 'general-summary', language: 'en-GB', plainText: true },
    });
    const events = await s.all();
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({
      persisted: true,
      plain_text: true,
      summary_language: 'en-GB',
      template: 'general-summary',
      billed: true,
    });
    expect(done.data.final_content).not.toMatch(/^#|^- /m);
    const tr = await t.app.deps.tasks.store.getTranscript(task.taskId);
    expect(tr?.revision).toBe(before + 1);
    expect(tr?.summary).toMatchObject({
      text: done.data.final_content,
      mode: 'builtin',
      template: 'general-summary',
      language: 'en-GB',
      plainText: true,
    });
    const listed = await t.app.deps.tasks.store.getTask(task.taskId);
    expect(listed).toMatchObject({ summaryMode: 'builtin', summaryTemplate: 'general-summary', summaryLanguage: 'en-GB' });
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { key: f.key })).all();
    expect(history.find((e) => e.event === 'init_summary')!.data).toEqual({
      text: done.data.final_content,
      mode: 'builtin',
      template: 'general-summary',
      plain_text: true,
      summary_language: 'en-GB',
    });
    expect((await usageRows(t, f.key)).map((r) => [r.type, r.points])).toEqual([['regen_summary', price()]]);
    expect(await balance(f)).toBeCloseTo(100 - price(), 3);
  });

  it('another summary language: the built-in text is translated when a translator serves the pair, else kept and reported as the transcript language', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const es = await (await openStream(url(task.taskId, '?mode=builtin&template=action-items&language=es'), { key: f.key })).all();
    const done = es.at(-1)!.data;
    expect(done.summary_language).toBe('es');
    expect(done.final_content).toMatch(/^## .+\n- Maria enviará/);
    expect(done.final_content).not.toContain('will send');
    // Interim text is never shown in English first.
    expect(es.filter((e) => e.event === 'summary_regeneration').every((e) => !e.data.text.includes('will send'))).toBe(true);
    // No English-to-Japanese engine here: the English summary, said to be English.
    const ja = await (await openStream(url(task.taskId, '?mode=builtin&template=action-items&language=ja'), { key: f.key })).all();
    expect(ja.at(-1)!.data).toMatchObject({ summary_language: 'en-US' });
    expect(ja.at(-1)!.data.final_content).toContain('Maria will send the updated launch budget to finance by Friday.');
  });

  it('the api_key query wins over the X-API-Key header on this endpoint', async () => {
    const owner = await funded(t, 100);
    const other = await funded(t, 100);
    const task = await seed(t, owner.principal, MEETING);
    const q = '?mode=builtin&template=general-summary';
    const queryOwner = await openStream(url(task.taskId, `${q}&api_key=${owner.key}`), { key: other.key });
    expect(queryOwner.status).toBe(200);
    expect((await queryOwner.all()).at(-1)!.event).toBe('done');
    const queryOther = await openStream(url(task.taskId, `${q}&api_key=${other.key}`), { key: owner.key });
    expect(queryOther.status).toBe(404);
    expect(queryOther.json.data.error_code).toBe('recording_not_found');
    // The POST form takes the query key too.
    const post = await openStream(url(task.taskId, `?api_key=${owner.key}`), {
      method: 'POST',
      key: other.key,
      body: { mode: 'builtin', template: 'general-summary' },
    });
    expect((await post.all()).at(-1)!.event).toBe('done');
  });

  it('a transcript too short to summarize comes back cleaned, marked too_short, and is billed like any regeneration (GET and POST)', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, JFK);
    const events = await (await openStream(url(task.taskId, '?mode=builtin&template=meeting-minutes'), { key: f.key })).all();
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const cleaned = 'My fellow americans ask not what your country can do for you ask what you can do for your country.';
    expect(done.data.final_content).toBe(cleaned);
    expect(done.data).toMatchObject({
      too_short: true,
      persisted: false,
      characters_billed: [...JFK.join('\n')].length,
      charged: '5.0',
      billed: true,
    });
    expect(done.data).not.toHaveProperty('truncated');
    const posted = await (
      await openStream(url(task.taskId), { method: 'POST', key: f.key, body: { mode: 'builtin', template: 'meeting-minutes' } })
    ).all();
    expect(posted.at(-1)!).toMatchObject({ event: 'done', data: { too_short: true, persisted: true, charged: '5.0', billed: true } });
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary?.text).toBe(cleaned);
    expect((await usageRows(t, f.key)).map((r) => [r.type, r.task_id, r.points])).toEqual([
      ['regen_summary', task.taskId, price()],
      ['regen_summary', task.taskId, price()],
    ]);
    expect(await balance(f)).toBeCloseTo(100 - 2 * price(), 3);
  });

  it('billed each time: every GET and every POST is its own regen_summary row, and each done carries the billing fields', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const before = (await t.app.deps.tasks.store.getTranscript(task.taskId))?.revision ?? 0;
    const dones: Ev['data'][] = [];
    for (const method of ['GET', 'GET', 'POST', 'POST'] as const) {
      const s =
        method === 'GET'
          ? await openStream(url(task.taskId, '?mode=builtin&template=general-summary'), { key: f.key })
          : await openStream(url(task.taskId), { method, key: f.key, body: { mode: 'builtin', template: 'general-summary' } });
      const last = (await s.all()).at(-1)!;
      expect(last.event).toBe('done');
      dones.push(last.data);
    }
    for (const d of dones) expect(d).toMatchObject({ characters_billed: [...MEETING.join('\n')].length, charged: '5.0', billed: true });
    expect(dones.map((d) => d.persisted)).toEqual([false, false, true, true]);
    const rows = await usageRows(t, f.key);
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r).toMatchObject({ type: 'regen_summary', task_id: task.taskId, points: price(), refunded: false });
    expect(await balance(f)).toBeCloseTo(100 - 4 * price(), 3);
    // POST saved twice: the revision went up once per save.
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.revision).toBe(before + 2);
  });

  describe('errors', () => {
    /** The stream's or response's error, and that nothing was billed or saved. */
    async function refused(f: { key: string }, taskId: string, query: string, status: number, code: string) {
      const s = await openStream(url(taskId, query), { key: f.key });
      expect(s.status).toBe(status);
      expect(s.json.data.error_code).toBe(code);
      expect(await usageRows(t, f.key)).toEqual([]);
      return s.json.data;
    }

    it('404 recording_not_found for a foreign, unknown or malformed task id', async () => {
      const f = await funded(t, 100);
      const other = await funded(t, 100);
      const foreign = await seed(t, other.principal, MEETING);
      await refused(f, foreign.taskId, '?mode=builtin&template=general-summary', 404, 'recording_not_found');
      await refused(f, '00000000-0000-4000-8000-000000000000', '?mode=builtin&template=general-summary', 404, 'recording_not_found');
      await refused(f, 'not-a-uuid', '?mode=builtin&template=general-summary', 404, 'recording_not_found');
    });

    it('404 sse_template_not_found and sse_transcript_not_found (failed without a transcript; still processing)', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      await refused(f, task.taskId, '?mode=builtin&template=no-such-template', 404, 'sse_template_not_found');
      const failed = await seed(t, f.principal, [], { status: 'failed' });
      await refused(f, failed.taskId, '?mode=builtin&template=general-summary', 404, 'sse_transcript_not_found');
      const busy = await seed(t, f.principal, MEETING, { status: 'processing' });
      const e = await refused(f, busy.taskId, '?mode=builtin&template=general-summary', 404, 'sse_transcript_not_found');
      expect(e.details.processing_status).toBe('processing');
    });

    it('400 summary_text_empty (a completed transcript with no sentence or only blank ones) and summary_text_too_long (over 200,000 characters)', async () => {
      const f = await funded(t, 100);
      const blank = await seed(t, f.principal, ['   ', '']);
      const blankError = await refused(f, blank.taskId, '?mode=builtin&template=general-summary', 400, 'summary_text_empty');
      expect(blankError.severity).toBe('error');
      const empty = await seed(t, f.principal, []);
      await refused(f, empty.taskId, '?mode=builtin&template=general-summary', 400, 'summary_text_empty');
      const post = await openStream(url(empty.taskId), {
        method: 'POST',
        key: f.key,
        body: { mode: 'builtin', template: 'general-summary' },
      });
      expect([post.status, post.json.data.error_code]).toEqual([400, 'summary_text_empty']);
      // 50 sentences of 4,000 characters joined by 49 line breaks: 200,049 characters.
      const long = await seed(
        t,
        f.principal,
        Array.from({ length: 50 }, () => 'word '.repeat(800).trim().padEnd(4000, '.')),
      );
      const e = await refused(f, long.taskId, '?mode=builtin&template=general-summary', 400, 'summary_text_too_long');
      expect(e.details).toMatchObject({ max_characters: 200_000, characters: 200_049 });
      // Exactly at the limit is accepted.
      const atLimit = await seed(t, f.principal, [
        ...Array.from({ length: 49 }, () => `${'word '.repeat(799)}end.`.padEnd(4000, '.')),
        'a'.repeat(200_000 - 49 * 4001),
      ]);
      const ok = await openStream(url(atLimit.taskId, '?mode=builtin&template=general-summary'), { key: f.key });
      expect(ok.status).toBe(200);
      expect((await ok.all()).at(-1)!.event).toBe('done');
    });

    it('parameter failures: an error event with only message (nothing billed)', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      const cases: Array<[string, RegExp]> = [
        ['', /mode is required/],
        ['?mode=fancy', /mode must be builtin or custom/],
        ['?mode=builtin', /template is required/],
        ['?mode=custom&promptSlug=s', /prompt is required/],
        [`?mode=custom&promptSlug=s&prompt=${'p'.repeat(3001)}`, /prompt must be at most 3000/],
        [`?mode=custom&prompt=p&promptSlug=${'s'.repeat(65)}`, /promptSlug must be at most 64/],
        ['?mode=custom&prompt=p&promptSlug=a%0Ab', /control characters/],
        ['?mode=builtin&template=general-summary&plainText=yes', /plainText must be a boolean/],
        ['?mode=builtin&template=general-summary&language=not%20a%20language', /language must be a language code/],
      ];
      for (const [query, message] of cases) {
        const s = await openStream(url(task.taskId, query), { key: f.key });
        expect(s.status).toBe(200);
        const events = await s.all();
        expect(names(events)).toEqual(['error']);
        expect(Object.keys(events[0]!.data)).toEqual(['message']);
        expect(events[0]!.data.message).toMatch(message);
      }
      const post = await openStream(url(task.taskId), { method: 'POST', key: f.key, body: { mode: 'builtin', template: 7 } });
      expect(await post.all()).toEqual([{ event: 'error', data: { message: 'template must be a string.' } }]);
      expect(await usageRows(t, f.key)).toEqual([]);
    });

    it('summary_mode_field_mismatch: 422 over SSE for a field the mode forbids (GET and POST)', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      const e = await refused(f, task.taskId, '?mode=builtin&template=general-summary&prompt=x', 422, 'summary_mode_field_mismatch');
      expect(e.details).toEqual({ field: 'prompt', mode: 'builtin' });
      await refused(f, task.taskId, '?mode=custom&prompt=x&promptSlug=y&template=general-summary', 422, 'summary_mode_field_mismatch');
      const post = await openStream(url(task.taskId), {
        method: 'POST',
        key: f.key,
        body: { mode: 'builtin', template: 'general-summary', promptSlug: 'x' },
      });
      expect(post.status).toBe(422);
      expect(post.json.data.error_code).toBe('summary_mode_field_mismatch');
    });

    it('a custom prompt without a language model is refused (503 llm_init_failed), not silently ignored', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      const e = await refused(f, task.taskId, '?mode=custom&prompt=List%20the%20risks&promptSlug=risks', 503, 'llm_init_failed');
      expect(e.message).toMatch(/Custom summary prompts need a language model/);
      expect(e.details.missing).toContain('instructions');
    });

    it('402 auth_insufficient_credit at zero balance, 402 summary_insufficient_credit below the price', async () => {
      const empty = await funded(t, 0);
      const t1 = await seed(t, empty.principal, MEETING);
      await refused(empty, t1.taskId, '?mode=builtin&template=general-summary', 402, 'auth_insufficient_credit');
      const poor = await funded(t, 1);
      const t2 = await seed(t, poor.principal, MEETING);
      const e = await refused(poor, t2.taskId, '?mode=builtin&template=general-summary', 402, 'summary_insufficient_credit');
      expect(e.details).toMatchObject({ remaining_budget: 1, required: price() });
      expect(await balance(poor)).toBe(1);
    });

    it('plan-bound unlimited keys: 403 plan_feature_not_allowed without the summary feature; charged 0 with it', async () => {
      const without = await funded(t, 0);
      await t.app.deps.plans.setPlan(without.principal.accountId, { mode: 'unlimited-plan', planName: 'nosummary' });
      const t1 = await seed(t, without.principal, MEETING);
      const e = await refused(without, t1.taskId, '?mode=builtin&template=general-summary', 403, 'plan_feature_not_allowed');
      expect(e.details).toMatchObject({ field: 'summary', plan: 'nosummary' });

      const withIt = await funded(t, 0);
      await t.app.deps.plans.setPlan(withIt.principal.accountId, { mode: 'unlimited-plan', planName: 'withsummary' });
      const t2 = await seed(t, withIt.principal, MEETING);
      const done = (await (await openStream(url(t2.taskId, '?mode=builtin&template=general-summary'), { key: withIt.key })).all()).at(-1)!;
      expect(done.data).toMatchObject({ billed: true, charged: '0.0' });
      expect(await usageRows(t, withIt.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: 0, refunded: false })]);
    });

    it('POST storage_upload_failed when the write fails: error event, no done, the charge refunded', async () => {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      const db = t.app.deps.database.db;
      // A real failure of the database write (as a full disk or a lost connection would give).
      if (backend === 'postgres') {
        await sql`create function refuse_summary() returns trigger language plpgsql as $$ begin raise exception 'storage unavailable'; end $$`.execute(
          db,
        );
        await sql`create trigger refuse_summary before update of summary on transcripts for each row execute function refuse_summary()`.execute(
          db,
        );
      } else {
        await sql`create trigger refuse_summary before update of summary on transcripts begin select raise(abort, 'storage unavailable'); end`.execute(
          db,
        );
      }
      try {
        const events = await (
          await openStream(url(task.taskId), { method: 'POST', key: f.key, body: { mode: 'builtin', template: 'general-summary' } })
        ).all();
        expect(names(events)).not.toContain('done');
        expect(events.at(-1)).toMatchObject({ event: 'error', data: { error_code: 'storage_upload_failed', severity: 'error' } });
        expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: 0, refunded: true })]);
        expect(await balance(f)).toBe(100);
        expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary ?? null).toBeNull();
      } finally {
        await sql`drop trigger refuse_summary${sql.raw(backend === 'postgres' ? ' on transcripts' : '')}`.execute(db);
        if (backend === 'postgres') await sql`drop function refuse_summary()`.execute(db);
      }
    });
  });
});
