/**
 * Search finds what is said in a live session within 2 s of its final (the issue's bar), on
 * a real session: jfk.flac streamed at real-time pace through the typed client to the
 * built-in recognizer (PocketSphinx, followed by silence so its sentences end while the
 * session records) with Spanish translation (Apertium), on SQLite and
 * PostgreSQL. For each final, GET /api/v1/search is polled for its longest word from the
 * moment the final reaches the client until a hit names that sentence; then, once the
 * session has stored its sentences, each is found once with its stored start time.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/client/index.js';
import { nodeClient, PCM_BYTES_PER_SECOND, pcmFrames } from '../../src/client/node.js';
import { JFK, startLiveApp } from '../realtime/support.js';
import { backends, type TestApp } from '../support/app.js';

const haveAudio = existsSync(JFK);
if (!haveAudio) console.warn(`skipped: ${JFK} is absent (../shared/audio holds the test recordings)`);

const FOUND_WITHIN_MS = 2000;

type Hit = { task_id: string; field: string; sid: number | null; language: string | null; start_ms: number | null };

describe.skipIf(!haveAudio).each(backends())('search during a live session (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  it('each final is found within 2 s, while recording; after the end each sentence is found once with its stored time', async () => {
    const created = await t.app.deps.keys.createKey({ name: 'live search' });
    await t.app.deps.billing.grantCredit({ accountId: created.account_id, points: 50, pool: 'account' });
    const parley = nodeClient({ baseUrl: t.url, apiKey: created.api_key });
    const search = async (q: string) => (await parley.search({ q, per_page: 50 })) as { data: Hit[] };

    const lags: { sid: number; word: string; ms: number; status: string }[] = [];
    const polls: Promise<void>[] = [];
    let taskId = '';
    const onFinal = (sid: number, text: string) => {
      const word = text.split(/\s+/).sort((a, b) => b.length - a.length)[0] ?? '';
      if (word.length < 3) return;
      const t0 = performance.now();
      polls.push(
        (async () => {
          for (;;) {
            const hits = (await search(word)).data;
            const ms = performance.now() - t0;
            if (hits.some((h) => h.task_id === taskId && h.field === 'transcript' && h.sid === sid)) {
              const [task] = await parley.tasks.list({ status: 'all', task_ids: [taskId] });
              lags.push({ sid, word, ms, status: task?.processing_status ?? 'gone' });
              return;
            }
            if (ms > 10_000) throw new Error(`"${word}" (sentence ${sid}) not found after ${Math.round(ms)} ms`);
            await new Promise((r) => setTimeout(r, 50));
          }
        })(),
      );
    };
    const events: LiveEvent[] = [];
    const session = await parley.live.start(
      { type: 'transcribe', transcription_languages: ['en'], translation_languages: ['es'], name: 'Live search' },
      (e) => {
        events.push(e);
        if (e.action === 'result' && e.data.origin.is_final && e.data.origin.text) onFinal(e.data.origin.sid, e.data.origin.text);
      },
    );
    taskId = session.taskId!;
    // jfk, then silence until a final has been found (at most 30 s): the recognizer ends its
    // sentences while the session still records, however loaded the machine is.
    async function* speechThenSilence() {
      yield* pcmFrames(JFK);
      for (let i = 0; i < 300 && lags.length === 0; i++) yield new Uint8Array(PCM_BYTES_PER_SECOND / 10);
    }
    await session.streamAudio(speechThenSilence(), { bytesPerSecond: PCM_BYTES_PER_SECOND });
    // The finals said while streaming are found while the task is still recording.
    await Promise.all(polls);
    const whileLive = lags.filter((l) => l.status === 'recording');
    expect(whileLive.length, JSON.stringify(lags)).toBeGreaterThan(0);
    const completed = session.waitFor('task_complete', () => true, { failOnError: false, timeoutMs: 60_000 });
    session.send('stop');
    await completed;
    await Promise.all(polls);
    console.log(`${backend}: final -> found in search (ms): ${lags.map((l) => `${l.word} ${Math.round(l.ms)}`).join(', ')}`);
    for (const l of lags) expect(l.ms, `${l.word} (sentence ${l.sid})`).toBeLessThan(FOUND_WITHIN_MS);

    // Stored now: each final's sentence once (no live leftover beside it), at its stored start.
    const finals = events.flatMap((e) => (e.action === 'result' && e.data.origin.is_final && e.data.origin.text ? [e.data.origin] : []));
    const stored = (await (await parley.tasks.history(taskId)).collect()).flatMap((e) => (e.event === 'init_sentence' ? [e.data] : []));
    for (const l of lags) {
      const hits = (await search(l.word)).data.filter((h) => h.task_id === taskId && h.field === 'transcript' && h.sid === l.sid);
      expect(hits, l.word).toHaveLength(1);
      const sentence = stored.find((s) => s.sid === l.sid);
      const [m, s] = String(sentence?.start_time).split(':').map(Number);
      expect(Math.floor(hits[0]!.start_ms! / 1000)).toBe((m ?? 0) * 60 + (s ?? 0));
    }
    // The Spanish translations are searchable too.
    const spanish = events.flatMap((e) => (e.action === 'translation' && e.data.is_final && e.data.text ? [e.data] : []));
    expect(spanish.length).toBeGreaterThan(0);
    const es = spanish[0]!;
    const esWord = es.text.split(/\s+/).sort((a, b) => b.length - a.length)[0]!;
    expect((await search(esWord)).data).toEqual(
      expect.arrayContaining([expect.objectContaining({ task_id: taskId, field: 'translation', language: 'es', sid: es.sid })]),
    );
    expect(finals.length).toBe(stored.length);
    session.close();
  }, 120_000);
});
