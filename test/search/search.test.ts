/**
 * Search across the task library (GET /api/v1/search), the same suite on SQLite (FTS5) and
 * PostgreSQL (tsvector): what is found, where the player jumps, the snippet marks, ranking,
 * filters, paging, every write path keeping the index true, and the errors. Records are made
 * through the task store and service, as live sessions, imports and edits make them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RANKED_MATCHES } from '../../src/search/store.js';
import { api, backends } from '../support/app.js';
import { type SeedOptions, seedTask, startTaskApp, type TaskTestApp } from '../tasks/harness.js';

describe.each(backends())('search (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  /** A fresh account, so each test sees only its own tasks. */
  async function account() {
    const k = await t.app.deps.keys.createKey({ name: 'search' });
    const seed = (o: SeedOptions = {}) => seedTask(t, { accountId: k.account_id, keyId: k.key_id, ...o });
    const search = (query: string) => api(t.url, 'GET', `/api/v1/search?${query}`, { key: k.api_key });
    return { key: k.api_key, seed, search };
  }
  const marked = (hit: { snippet: string; highlights: { start: number; end: number }[] }) =>
    hit.highlights.map((h) => hit.snippet.slice(h.start, h.end));

  it('finds a word in a transcript with its snippet marked and the sentence start to jump to', async () => {
    const a = await account();
    const task = await a.seed({
      title: 'Weekly sync',
      sentences: [
        { sid: 1, origin: 'Good morning everyone.', startMs: 0, endMs: 1500 },
        { sid: 2, origin: 'The Budget for the lighthouse project is approved.', startMs: 61_250, endMs: 64_000, speakerId: 'S1' },
      ],
    });
    const res = await a.search('q=budget');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 20, total: 1, total_capped: false });
    const [hit] = res.body.data;
    expect(hit).toMatchObject({
      task_id: task.taskId,
      title: 'Weekly sync',
      type: 'transcribe',
      field: 'transcript',
      sid: 2,
      language: 'en-US',
      speaker_id: 'S1',
      speaker_label: 'S1',
      start_ms: 61_250,
      end_ms: 64_000,
      snippet: 'The Budget for the lighthouse project is approved.',
    });
    expect(marked(hit)).toEqual(['Budget']);
  });

  it('finds titles, translations, summaries and speaker names, each hit saying where', async () => {
    const a = await account();
    const task = await a.seed({
      title: 'Harbour planning',
      recognitionMode: 'multi_speaker',
      sentences: [
        { sid: 1, origin: 'We open the harbour in May.', startMs: 2000, endMs: 4000, speakerId: 'speaker_1' },
        { sid: 2, origin: 'Tickets go on sale next week.', startMs: 9000, endMs: 11_000, speakerId: 'speaker_2' },
      ],
    });
    const { store } = t.mod;
    await store.setTranslations(task.taskId, 'de', [
      { sid: 1, text: 'Wir öffnen den Hafen im Mai.' },
      { sid: 2, text: 'Der Kartenverkauf beginnt nächste Woche.' },
    ]);
    await store.setSummary(task.taskId, {
      text: 'The harbour opens in May; ticket sales start soon.',
      language: 'en',
      mode: 'builtin',
      template: 'general',
      plainText: true,
    });
    await store.setSpeakers(task.taskId, { speaker_2: 'Margarethe Lindqvist' }, []);

    const harbour = (await a.search('q=harbour')).body.data;
    expect(harbour[0]).toMatchObject({ field: 'title', sid: null, start_ms: null, snippet: 'Harbour planning' });
    expect(harbour.slice(1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'summary', language: 'en', start_ms: null }),
        expect.objectContaining({ field: 'transcript', sid: 1, start_ms: 2000 }),
      ]),
    );
    expect(harbour).toHaveLength(3);

    const hafen = (await a.search('q=Hafen')).body.data;
    expect(hafen).toEqual([
      expect.objectContaining({ field: 'translation', language: 'de', sid: 1, start_ms: 2000, snippet: 'Wir öffnen den Hafen im Mai.' }),
    ]);
    expect(marked(hafen[0])).toEqual(['Hafen']);

    const name = (await a.search('q=lindqvist')).body.data;
    expect(name).toEqual([
      expect.objectContaining({
        field: 'speaker',
        speaker_id: 'speaker_2',
        speaker_label: 'Margarethe Lindqvist',
        start_ms: 9000,
        end_ms: 11_000,
      }),
    ]);
    // Sentences of a renamed speaker show the name.
    const tickets = (await a.search('q=tickets')).body.data;
    expect(tickets).toEqual([
      expect.objectContaining({ field: 'transcript', speaker_id: 'speaker_2', speaker_label: 'Margarethe Lindqvist' }),
    ]);
  });

  it('needs every word; "quoted words" are a phrase; word* is a prefix; case and punctuation do not matter', async () => {
    const a = await account();
    await a.seed({
      sentences: [
        { sid: 1, origin: 'The red car stopped.', startMs: 0, endMs: 1000 },
        { sid: 2, origin: 'A car, red and fast!', startMs: 1000, endMs: 2000 },
        { sid: 3, origin: 'Carpets are red.', startMs: 2000, endMs: 3000 },
      ],
    });
    const sids = async (q: string) => (await a.search(`q=${encodeURIComponent(q)}`)).body.data.map((h: { sid: number }) => h.sid).sort();
    expect(await sids('RED car')).toEqual([1, 2]);
    expect(await sids('"red car"')).toEqual([1]);
    expect(await sids('car* red')).toEqual([1, 2, 3]);
    expect(await sids('red, fast')).toEqual([2]);
    expect(await sids('blue')).toEqual([]);
    const [carpets] = (await a.search('q=carp*')).body.data;
    expect(marked(carpets)).toEqual(['Carpets']);
  });

  it('ranks a title above a speaker name above text, and newer tasks first among equals', async () => {
    const a = await account();
    const old = await a.seed({
      title: 'Notes',
      createdAt: new Date('2026-01-01T10:00:00Z'),
      sentences: [{ sid: 1, origin: 'Quarterly results were fine.', startMs: 0, endMs: 1 }],
    });
    const newer = await a.seed({
      title: 'Notes',
      createdAt: new Date('2026-02-01T10:00:00Z'),
      sentences: [{ sid: 1, origin: 'Quarterly planning next.', startMs: 0, endMs: 1 }],
    });
    const titled = await a.seed({ title: 'Quarterly review', createdAt: new Date('2025-06-01T10:00:00Z') });
    const hits = (await a.search('q=quarterly')).body.data;
    expect(hits.map((h: { task_id: string }) => h.task_id)).toEqual([titled.taskId, newer.taskId, old.taskId]);
  });

  it('filters by type, language, creation date and speaker (original id or display label)', async () => {
    const a = await account();
    const jan = await a.seed({
      type: 'conversation',
      createdAt: new Date('2026-01-15T12:00:00Z'),
      transcriptionLanguages: ['en-US', 'fr-FR'],
      sentences: [
        { sid: 1, origin: 'Meeting about cheese.', startMs: 0, endMs: 1, speakerId: 'a', language: 'en-US' },
        { sid: 2, origin: 'Une réunion sur le cheese.', startMs: 5, endMs: 6, speakerId: 'b', language: 'fr-FR' },
      ],
    });
    await t.mod.store.setSpeakers(jan.taskId, { b: 'Amélie' }, []);
    const mar = await a.seed({
      createdAt: new Date('2026-03-02T08:00:00Z'),
      sentences: [{ sid: 1, origin: 'More cheese.', startMs: 0, endMs: 1 }],
    });
    const ids = async (q: string) =>
      (await a.search(`q=cheese&${q}`)).body.data
        .map((h: { task_id: string; sid: number }) => `${h.task_id === jan.taskId ? 'jan' : 'mar'}:${h.sid}`)
        .sort();
    expect(await ids('type=conversation')).toEqual(['jan:1', 'jan:2']);
    expect(await ids('type=transcribe')).toEqual(['mar:1']);
    expect(await ids('language=fr')).toEqual(['jan:2']);
    expect(await ids('language=en-us')).toEqual(['jan:1', 'mar:1']);
    expect(await ids('from=2026-02-01')).toEqual(['mar:1']);
    expect(await ids('to=2026-01-15')).toEqual(['jan:1', 'jan:2']);
    expect(await ids('from=2026-01-15T12:00:01Z&to=2026-03-02T08:00:00Z')).toEqual([]);
    expect(await ids('speaker=a')).toEqual(['jan:1']);
    expect(await ids(`speaker=${encodeURIComponent('Amélie')}`)).toEqual(['jan:2']);
    expect(mar.taskId).toBeDefined();
  });

  it('pages like the other lists: per_page, page, meta; a page past the end is empty', async () => {
    const a = await account();
    for (let i = 0; i < 5; i++) await a.seed({ title: `Standup ${i}`, createdAt: new Date(Date.UTC(2026, 0, 1 + i)) });
    const p1 = await a.search('q=standup&per_page=2');
    const p3 = await a.search('q=standup&per_page=2&page=3');
    expect(p1.body.meta).toEqual({ current_page: 1, last_page: 3, per_page: 2, total: 5, total_capped: false });
    expect(p1.body.data.map((h: { title: string }) => h.title)).toEqual(['Standup 4', 'Standup 3']);
    expect(p3.body.data.map((h: { title: string }) => h.title)).toEqual(['Standup 0']);
    const past = await a.search('q=standup&per_page=2&page=4');
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], meta: { current_page: 4, last_page: 3, per_page: 2, total: 5, total_capped: false } });
  });

  it('ranks the newest 1,000 matches of a word found more often, says the total is capped, and pages through them', async () => {
    const a = await account();
    const count = RANKED_MATCHES + 5;
    await a.seed({
      title: 'Many',
      sentences: Array.from({ length: count }, (_, i) => ({
        sid: i + 1,
        // Sentence 701 says the word three times: the best match; the others tie and go newest first.
        origin: i === 700 ? 'Common common common word.' : `Common word number ${i + 1}.`,
        startMs: i * 1000,
        endMs: i * 1000 + 900,
      })),
    });
    const first = await a.search('q=common&per_page=50');
    expect(first.body.meta).toEqual({ current_page: 1, last_page: 20, per_page: 50, total: RANKED_MATCHES, total_capped: true });
    expect(first.body.data.slice(0, 3).map((h: { sid: number }) => h.sid)).toEqual([701, count, count - 1]);
    const sids: number[] = [];
    for (let page = 1; page <= 20; page++) {
      const res = await a.search(`q=common&per_page=50&page=${page}`);
      sids.push(...res.body.data.map((h: { sid: number }) => h.sid));
    }
    // Each ranked entry once; the five oldest matches are the ones left out.
    expect(new Set(sids).size).toBe(RANKED_MATCHES);
    expect(Math.min(...sids)).toBe(6);
    expect((await a.search('q=common&per_page=50&page=21')).body.data).toEqual([]);
    // A query with fewer matches than the bound is counted and ranked whole.
    const narrow = await a.search('q=common+number+1*');
    expect(narrow.body.meta).toMatchObject({ total: 117, total_capped: false });
  });

  it('stays true on every write: rename, edit, retranslation, speaker rename, reprocessing, deletion', async () => {
    const a = await account();
    const task = await a.seed({
      title: 'Draft',
      recognitionMode: 'multi_speaker',
      sentences: [{ sid: 1, origin: 'Alpha bravo.', startMs: 100, endMs: 900, speakerId: 'x' }],
    });
    const { store, tasks } = t.mod;
    const total = async (q: string) => (await a.search(`q=${q}`)).body.meta.total;

    await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/name`, { key: a.key, body: { name: 'Final plan' } });
    expect([await total('draft'), await total('final')]).toEqual([0, 1]);

    // A sentence written again with other text (a correction, a live final replacing itself).
    await store.appendSentences(task.taskId, [{ sid: 1, origin: 'Charlie delta.', startMs: 150, endMs: 900, speakerId: 'x' }]);
    expect([await total('alpha'), await total('charlie')]).toEqual([0, 1]);
    expect((await a.search('q=charlie')).body.data[0].start_ms).toBe(150);

    await store.setTranslations(task.taskId, 'es', [{ sid: 1, text: 'Uno dos.' }]);
    expect(await total('uno')).toBe(1);
    await store.setTranslations(task.taskId, 'es', [{ sid: 1, text: 'Tres cuatro.' }]);
    expect([await total('uno'), await total('tres')]).toEqual([0, 1]);
    await store.setTranslations(task.taskId, 'es', [{ sid: 1, error: 'translation_failed' }]);
    expect(await total('tres')).toBe(0);

    await store.setSpeakers(task.taskId, { x: 'Zelda' }, []);
    expect(await total('zelda')).toBe(1);
    const renamed = await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/speakers/rename`, {
      key: a.key,
      body: { speaker_id: 'x', new_label: 'Yorick' },
    });
    expect(renamed.status).toBe(200);
    expect([await total('zelda'), await total('yorick')]).toEqual([0, 1]);
    expect((await a.search('q=charlie&speaker=Yorick')).body.meta.total).toBe(1);

    await store.setSummary(task.taskId, { text: 'Echo foxtrot.', language: 'en', mode: 'builtin', template: 'general', plainText: true });
    expect(await total('echo')).toBe(1);
    await store.resetTranscript(task.taskId);
    expect([await total('charlie'), await total('echo'), await total('yorick'), await total('final')]).toEqual([0, 0, 0, 1]);

    await store.appendSentences(task.taskId, [{ sid: 1, origin: 'Golf hotel.', startMs: 0, endMs: 1 }]);
    const del = await api(t.url, 'DELETE', `/api/v1/tasks/${task.taskId}`, { key: a.key });
    expect(del.status).toBe(200);
    expect([await total('golf'), await total('final')]).toEqual([0, 0]);
    expect(tasks).toBeDefined();
  });

  it('a live final is searchable before the session stores it, and the stored sentence takes its place', async () => {
    const a = await account();
    const task = await a.seed({ status: 'recording', title: 'Live one' });
    const { liveSearch } = t.app.deps;
    const final = (sid: number, text: string) =>
      liveSearch.observe({
        event: 'result',
        seq: sid,
        task_id: task.taskId,
        data: {
          origin: {
            sid,
            language: 'en-US',
            text,
            is_final: true,
            speaker_id: null,
            detected_language: null,
            start_time: '01:05',
            end_ms: 67_000,
          },
        },
      });
    final(1, 'Kilimanjaro is tall.');
    liveSearch.observe({
      event: 'translation',
      seq: 2,
      task_id: task.taskId,
      data: { sid: 1, language: 'fr', text: 'Le Kilimandjaro est haut.', is_final: true },
    });
    await liveSearch.idle();
    const hits = (await a.search('q=kilimanjaro')).body.data;
    expect(hits).toEqual([expect.objectContaining({ field: 'transcript', sid: 1, start_ms: 65_000, end_ms: 67_000 })]);
    expect((await a.search('q=kilimandjaro')).body.data).toEqual([
      expect.objectContaining({ field: 'translation', language: 'fr', start_ms: 65_000 }),
    ]);
    // A withdrawn final (empty text) leaves the index.
    final(2, 'Nairobi maybe');
    final(2, '');
    await liveSearch.idle();
    expect((await a.search('q=nairobi')).body.meta.total).toBe(0);
    // Finalizing stores the sentence: one hit, with the stored times.
    await t.mod.store.appendSentences(task.taskId, [{ sid: 1, origin: 'Kilimanjaro is tall.', startMs: 65_400, endMs: 66_900 }]);
    expect((await a.search('q=kilimanjaro')).body.data).toEqual([expect.objectContaining({ sid: 1, start_ms: 65_400 })]);
    expect((await a.search('q=kilimandjaro')).body.meta.total).toBe(0);
  });

  it("never shows another account's tasks", async () => {
    const a = await account();
    const b = await account();
    await a.seed({ title: 'Confidential merger' });
    expect((await b.search('q=merger')).body).toEqual({
      data: [],
      meta: { current_page: 1, last_page: 1, per_page: 20, total: 0, total_capped: false },
    });
    expect((await a.search('q=merger')).body.meta.total).toBe(1);
  });

  it('answers the spec codes: 401 without a valid key, 422 validation_failed with the field', async () => {
    const a = await account();
    expect((await api(t.url, 'GET', '/api/v1/search?q=x')).body.data.error_code).toBe('auth_missing_api_key');
    expect((await api(t.url, 'GET', '/api/v1/search?q=x', { key: 'nope' })).body.data.error_code).toBe('auth_invalid_key_format');
    expect((await api(t.url, 'GET', '/api/v1/search?q=x', { key: `svc_${'a'.repeat(32)}` })).status).toBe(401);
    const bad: [string, string][] = [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%22%22+*+--', 'q'],
      [`q=${'a'.repeat(201)}`, 'q'],
      [`q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join('+')}`, 'q'],
      ['q=x&q=y', 'q'],
      ['q=x&type=meeting', 'type'],
      ['q=x&language=english!', 'language'],
      ['q=x&from=yesterday', 'from'],
      ['q=x&to=2026-13-45', 'to'],
      ['q=x&from=2026-02-01&to=2026-01-01', 'to'],
      ['q=x&speaker=', 'speaker'],
      ['q=x&page=0', 'page'],
      ['q=x&per_page=51', 'per_page'],
      ['q=x&per_page=two', 'per_page'],
    ];
    for (const [query, field] of bad) {
      const res = await a.search(query);
      expect({ query, status: res.status, code: res.body.data.error_code, field: res.body.data.details.field }).toEqual({
        query,
        status: 422,
        code: 'validation_failed',
        field,
      });
    }
  });
});
