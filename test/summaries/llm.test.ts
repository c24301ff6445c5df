/**
 * The regenerate endpoint through the LLM tier, end to end against the local
 * OpenAI-compatible server (streaming chat completions): tokens as summary_regeneration
 * events, the content-filter fallback levels (and what history then shows), every llm_* code
 * the remote tier's failures map to, sse_summary_regeneration_failed, truncated, and the
 * POST-only transcript_revision_conflict. Nothing is billed or saved on any failure.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { type Ev, funded, MEETING, openStream, seed, startSummaryApp, usageRows } from './support.js';

const SEGMENTS = [
  'Alice: we should ship the release on Friday.',
  'Bob: the FORBIDDEN topic came up again.',
  'Carol: the budget is approved.',
  'Dan: QA signs off on Thursday.',
  'Eve: FORBIDDEN remark here as well.',
  'Frank: next meeting on Monday.',
];

describe('regenerate summary over SSE, LLM tier (local OpenAI-compatible server)', () => {
  let server: OpenAiServer;
  let t: TestApp;
  beforeAll(async () => {
    server = await startOpenAiServer();
    t = await startSummaryApp('sqlite', { server, maxTokens: 50 });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });
  afterEach(() => {
    server.script = [];
    server.chunkDelayMs = 0;
    server.filterWords = ['FORBIDDEN'];
    server.filterMode = 'finish';
  });

  const url = (taskId: string, query = '') => `${t.url}/api/v1/sse/regenerate/summary/${taskId}${query}`;
  const price = () => t.app.deps.billing.prices.oneOff('regen_summary');
  const names = (events: Ev[]) => events.map((e) => e.event);
  const post = async (key: string, taskId: string, body: unknown) => (await openStream(url(taskId), { method: 'POST', key, body })).all();

  it('streams the model tokens as cumulative summary_regeneration events; done reports the tokens; billed', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => 'The team will launch the app in Portugal in March.';
    server.chunkDelayMs = 30;
    const events = await (await openStream(url(task.taskId, '?mode=builtin&template=meeting-minutes&language=de'), { key: f.key })).all();
    const texts = events.filter((e) => e.event === 'summary_regeneration').map((e) => e.data);
    // One event per streamed token (10 words), then the final one.
    expect(texts.length).toBeGreaterThanOrEqual(8);
    expect(texts[0]).toEqual({ text: 'The ', is_final: false });
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.text.startsWith(texts[i - 1]!.text.trim())).toBe(true);
    expect(texts.at(-1)).toEqual({ text: 'The team will launch the app in Portugal in March.', is_final: true });
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({
      final_content: 'The team will launch the app in Portugal in March.',
      tokens_used: { input: expect.any(Number), output: 10 },
      summary_language: 'de',
      template: 'meeting-minutes',
      charged: '5.0',
      billed: true,
    });
    expect(done.data).not.toHaveProperty('truncated');
    expect(done.data).not.toHaveProperty('fallback_level');
    const prompt = (server.requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages;
    expect(prompt[0]!.content).toContain('German (de)');
    expect(prompt[1]!.content).toContain('## Decisions');
    expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: price() })]);
  });

  it('custom mode: the prompt reaches the model; done has prompt_snapshot and the prompt slug as template; POST saves them', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => 'Risks: none stated.';
    const events = await post(f.key, task.taskId, { mode: 'custom', prompt: 'List the risks only.', promptSlug: 'risks-v2' });
    expect(events.at(-1)!.data).toMatchObject({
      mode: 'custom',
      template: 'risks-v2',
      prompt_snapshot: 'List the risks only.',
      persisted: true,
      final_content: 'Risks: none stated.',
    });
    expect((server.requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages[1]!.content).toContain(
      'List the risks only.',
    );
    const tr = await t.app.deps.tasks.store.getTranscript(task.taskId);
    expect(tr?.summary).toMatchObject({ mode: 'custom', template: 'risks-v2', promptSnapshot: 'List the risks only.' });
    // Both GET and POST are billed, with the model serving them: a row and the billing fields each time.
    const q = `?mode=custom&prompt=${encodeURIComponent('List the risks only.')}&promptSlug=risks-v2`;
    const preview = (await (await openStream(url(task.taskId, q), { key: f.key })).all()).at(-1)!;
    expect(preview).toMatchObject({ event: 'done', data: { persisted: false, prompt_snapshot: 'List the risks only.' } });
    for (const done of [events.at(-1)!.data, preview.data])
      expect(done).toMatchObject({ characters_billed: MEETING.join('\n').length, charged: '5.0', billed: true });
    expect((await usageRows(t, f.key)).map((r) => [r.type, r.task_id, r.points])).toEqual([
      ['regen_summary', task.taskId, price()],
      ['regen_summary', task.taskId, price()],
    ]);
  });

  it('fallback level 2: a refused prompt is retried with neutral instructions; POST saves fallback_level 2 and history shows it', async () => {
    const f = await funded(t, 100);
    const task = await seed(
      t,
      f.principal,
      SEGMENTS.filter((s) => !s.includes('FORBIDDEN')),
    );
    server.reply = () => 'Neutral summary.';
    const events = await post(f.key, task.taskId, { mode: 'custom', prompt: 'Roast everyone, FORBIDDEN style.', promptSlug: 'roast' });
    expect(events.at(-1)!.data).toMatchObject({ final_content: 'Neutral summary.', fallback_level: 2, dropped_segments: [], billed: true });
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { key: f.key })).all();
    expect(history.find((e) => e.event === 'init_summary')!.data).toMatchObject({
      text: 'Neutral summary.',
      fallback_level: 2,
      dropped_segments: [],
    });
  });

  it('fallback level 3: refused segments are omitted and reported by index; history carries dropped_segments', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, SEGMENTS);
    server.reply = () => 'Summary without the refused parts.';
    const events = await post(f.key, task.taskId, { mode: 'builtin', template: 'general-summary' });
    expect(events.at(-1)!.data).toMatchObject({ fallback_level: 3, dropped_segments: [1, 4], persisted: true, billed: true });
    const finalPrompt = (server.requests.at(-1)!.json as { messages: Array<{ content: string }> }).messages[1]!.content;
    expect(finalPrompt).toContain('Frank: next meeting on Monday.');
    expect(finalPrompt).not.toContain('FORBIDDEN');
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { key: f.key })).all();
    expect(history.find((e) => e.event === 'init_summary')!.data).toMatchObject({ fallback_level: 3, dropped_segments: [1, 4] });
    expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: price() })]);
  });

  it('llm_content_filtered when every path is refused (also as a 400 content_filter error): error event, nothing saved or billed', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, ['FORBIDDEN one.', 'FORBIDDEN two.', 'FORBIDDEN three.']);
    for (const mode of ['finish', 'error'] as const) {
      server.filterMode = mode;
      const events = await post(f.key, task.taskId, { mode: 'builtin', template: 'general-summary' });
      expect(names(events)).toEqual(['connected', 'error']);
      expect(events[1]!.data).toMatchObject({ error_code: 'llm_content_filtered', severity: 'warning' });
    }
    expect(await usageRows(t, f.key)).toEqual([]);
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary ?? null).toBeNull();
  });

  it('maps every remote failure to its llm_* code: error event, no done, nothing billed or saved', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const cases: Array<[Parameters<typeof server.script.push>[0], string, string]> = [
      [{ status: 401, body: { error: { message: 'Incorrect API key', code: 'invalid_api_key' } } }, 'llm_auth_failed', 'fatal'],
      [{ status: 402, body: { error: { message: 'no credit' } } }, 'llm_quota_exceeded', 'fatal'],
      [{ status: 429, body: { error: { message: 'quota', code: 'insufficient_quota' } } }, 'llm_quota_exceeded', 'fatal'],
      [{ status: 404, body: { error: { message: 'model not found', code: 'model_not_found' } } }, 'llm_deployment_not_found', 'fatal'],
      [{ status: 429, headers: { 'retry-after': '1' } }, 'llm_rate_limit', 'warning'],
      [{ status: 500 }, 'llm_provider_error', 'error'],
      [{ status: 503 }, 'llm_provider_error', 'error'],
      [{ drop: true }, 'llm_request_failed', 'error'],
      [{ status: 400, body: { error: { message: 'bad request' } } }, 'llm_request_failed', 'error'],
    ];
    for (const [step, code, severity] of cases) {
      server.script = [step];
      const events = await post(f.key, task.taskId, { mode: 'builtin', template: 'general-summary' });
      expect([code, names(events)]).toEqual([code, ['connected', 'error']]);
      expect(events[1]!.data).toMatchObject({ error_code: code, severity });
    }
    expect(await usageRows(t, f.key)).toEqual([]);
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary ?? null).toBeNull();
    expect(await t.app.deps.billing.available(f.principal)).toBe(100);
  });

  it('sse_summary_regeneration_failed when the model writes nothing: nothing saved or billed', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => '';
    const events = await post(f.key, task.taskId, { mode: 'builtin', template: 'general-summary' });
    expect(names(events)).toEqual(['connected', 'error']);
    expect(events[1]!.data).toMatchObject({ error_code: 'sse_summary_regeneration_failed' });
    expect(await usageRows(t, f.key)).toEqual([]);
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary ?? null).toBeNull();
  });

  it('truncated at the output limit: done says truncated true, still billed, POST still saves', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => 'word '.repeat(80).trim();
    const events = await post(f.key, task.taskId, { mode: 'builtin', template: 'general-summary' });
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({ truncated: true, persisted: true, billed: true });
    expect(done.final_content.split(' ')).toHaveLength(50);
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary?.text).toBe(done.final_content);
    expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: price() })]);
  });

  it('POST transcript_revision_conflict when a speaker edit lands while the summary is written: no done, nothing billed or saved', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => 'one two three four five six seven eight nine ten eleven twelve';
    server.chunkDelayMs = 80;
    const s = await openStream(url(task.taskId), { method: 'POST', key: f.key, body: { mode: 'builtin', template: 'general-summary' } });
    expect((await s.next())?.event).toBe('connected');
    expect((await s.next())?.event).toBe('summary_regeneration');
    const edit = await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/speakers/rename`, {
      key: f.key,
      body: { speaker_id: '1', new_label: 'Maria' },
    });
    expect(edit.status).toBe(200);
    const events = await s.all();
    expect(names(events)).not.toContain('done');
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { error_code: 'transcript_revision_conflict' } });
    expect(await usageRows(t, f.key)).toEqual([]);
    expect((await t.app.deps.tasks.store.getTranscript(task.taskId))?.summary ?? null).toBeNull();
    // The same edit during a GET preview does not matter: nothing is saved.
    const preview = await openStream(url(task.taskId, '?mode=builtin&template=general-summary'), { key: f.key });
    await preview.next();
    await preview.next();
    await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/speakers/rename`, { key: f.key, body: { speaker_id: '1', new_label: 'Ana' } });
    expect((await preview.all()).at(-1)!.event).toBe('done');
  });

  it('a client that leaves mid-stream is not charged', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    server.reply = () => 'one two three four five six seven eight nine ten eleven twelve';
    server.chunkDelayMs = 100;
    const controller = new AbortController();
    const res = await fetch(url(task.taskId, '?mode=builtin&template=general-summary'), {
      headers: { 'x-api-key': f.key },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    // Long enough for the stream to have finished had it gone on.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await usageRows(t, f.key)).toEqual([]);
  });
});

describe('llm_timeout', () => {
  it('a model that does not answer within the request timeout: llm_timeout error event, nothing billed', async () => {
    const server = await startOpenAiServer();
    const t = await startSummaryApp('sqlite', { server, timeoutMs: 1000 });
    try {
      const f = await funded(t, 100);
      const task = await seed(t, f.principal, MEETING);
      server.script = [{ slowMs: 4000 }];
      const events = await (
        await openStream(`${t.url}/api/v1/sse/regenerate/summary/${task.taskId}`, {
          method: 'POST',
          key: f.key,
          body: { mode: 'builtin', template: 'general-summary' },
        })
      ).all();
      expect(events.map((e) => e.event)).toEqual(['connected', 'error']);
      expect(events[1]!.data).toMatchObject({ error_code: 'llm_timeout', severity: 'error' });
      expect(await usageRows(t, f.key)).toEqual([]);
    } finally {
      await t.close();
      await server.close();
    }
  }, 30_000);
});
