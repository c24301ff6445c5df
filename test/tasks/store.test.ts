import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canTransition, TASK_STATUSES } from '../../src/tasks/status.js';
import { backends } from '../support/app.js';
import { outboxFor } from '../support/outbox.js';
import { seedTask, startTaskApp, type TaskTestApp } from './harness.js';

describe('status transition table', () => {
  it('follows the spec table, plus failed -> processing for retry', () => {
    const allowed = TASK_STATUSES.flatMap((from) => TASK_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}>${to}`));
    expect(allowed.sort()).toEqual(
      [
        'recording>uploading',
        'recording>failed',
        'importing>uploading',
        'importing>failed',
        'uploading>processing',
        'uploading>failed',
        'pending>processing',
        'pending>failed',
        'processing>completed',
        'processing>failed',
        'failed>processing',
      ].sort(),
    );
  });
});

describe.each(backends())('task store writers (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  it('a live recording moves recording -> uploading -> processing -> completed; wrong moves are refused', async () => {
    const { store } = t.mod;
    const task = await seedTask(t, { status: 'recording' });
    await expect(store.setStatus(task.taskId, 'completed')).rejects.toMatchObject({ code: 'invalid_processing_status' });
    await store.setStatus(task.taskId, 'uploading');
    await store.setStatus(task.taskId, 'processing', { durationMs: 61_000 });
    const done = await store.setStatus(task.taskId, 'completed');
    expect(done).toMatchObject({ processingStatus: 'completed', durationMs: 61_000, failureSource: null });
    await expect(store.setStatus(task.taskId, 'failed')).rejects.toMatchObject({ code: 'invalid_processing_status' });
  });

  it('complete and fail move the task and write recording.completed / recording.failed to the webhook outbox', async () => {
    const { tasks } = t.mod;
    const a = await seedTask(t, { status: 'processing', typeSource: 'broadcast', type: 'broadcast', translationLanguages: ['fr'] });
    await tasks.complete(a.taskId, { durationMs: 90_000 });
    const b = await seedTask(t, { status: 'recording' });
    await tasks.fail(b.taskId, { source: 'no_audio', code: 'no_audio' });
    await expect(tasks.complete(b.taskId)).rejects.toMatchObject({ code: 'invalid_processing_status' });
    expect(await outboxFor(t.app, a.taskId)).toEqual([
      {
        event: 'recording.completed',
        status: expect.any(String), // this app's worker may have handled it already
        callback_url: null,
        data: {
          task_id: a.taskId,
          name: 'Meeting',
          duration_ms: 90_000,
          type_source: 'realtime',
          transcription_languages: ['en-US'],
          translation_languages: ['fr'],
        },
      },
    ]);
    expect(await outboxFor(t.app, b.taskId)).toEqual([
      {
        event: 'recording.failed',
        status: expect.any(String),
        callback_url: null,
        data: { task_id: b.taskId, error: expect.any(String), failure_source: 'no_audio' },
      },
    ]);
    expect(await t.mod.store.getTask(b.taskId)).toMatchObject({
      processingStatus: 'failed',
      failureSource: 'no_audio',
      failureCode: 'no_audio',
    });
  });

  it('of two writers moving the same task at once, exactly one succeeds', async () => {
    const { store } = t.mod;
    const task = await seedTask(t, { status: 'processing' });
    const results = await Promise.allSettled([
      store.setStatus(task.taskId, 'completed'),
      store.setStatus(task.taskId, 'failed', { failure: { source: 'processing', code: 'stt_connection_lost' } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('appendSentences replaces a sentence with the same sid; setTranslations keeps text and errors apart', async () => {
    const { store } = t.mod;
    const task = await seedTask(t, { status: 'recording' });
    await store.appendSentences(task.taskId, [
      { sid: 1, origin: 'interim', startMs: 0, endMs: 500 },
      { sid: 2, origin: 'two', startMs: 500, endMs: 900, speakerId: '1', language: 'en' },
    ]);
    await store.appendSentences(task.taskId, [{ sid: 1, origin: 'final', startMs: 0, endMs: 450, language: 'en' }]);
    await store.setTranslations(task.taskId, 'fr', [
      { sid: 1, text: 'finale' },
      { sid: 2, error: 'llm_timeout' },
      { sid: 99, text: 'ignored' },
    ]);
    await store.setTranslations(task.taskId, 'de', [{ sid: 2, text: 'zwei' }]);
    let sentences = await store.listSentences(task.taskId);
    expect(sentences).toEqual([
      {
        sid: 1,
        origin: 'final',
        startMs: 0,
        endMs: 450,
        speakerId: null,
        language: 'en',
        translations: { fr: 'finale' },
        translationErrors: null,
      },
      {
        sid: 2,
        origin: 'two',
        startMs: 500,
        endMs: 900,
        speakerId: '1',
        language: 'en',
        translations: { de: 'zwei' },
        translationErrors: { fr: 'llm_timeout' },
      },
    ]);
    // A later successful retranslation clears the error.
    await store.setTranslations(task.taskId, 'fr', [{ sid: 2, text: 'deux' }]);
    sentences = await store.listSentences(task.taskId);
    expect(sentences[1]).toMatchObject({ translations: { de: 'zwei', fr: 'deux' }, translationErrors: null });
    expect(await store.countSentences(task.taskId)).toBe(2);
  });

  it('setSummary increments the revision and writes the list fields; custom keeps its prompt; level 3 its segments', async () => {
    const { store } = t.mod;
    const task = await seedTask(t, { sentences: [{ sid: 1, origin: 'x', startMs: 0, endMs: 1 }] });
    expect(
      await store.setSummary(task.taskId, {
        text: 'A',
        language: 'en',
        mode: 'builtin',
        template: 'meeting',
        plainText: false,
        promptSnapshot: 'dropped',
      }),
    ).toBe(1);
    let tr = await store.getTranscript(task.taskId);
    expect(tr!.summary).toEqual({
      text: 'A',
      language: 'en',
      mode: 'builtin',
      template: 'meeting',
      plainText: false,
      promptSnapshot: null,
      fallbackLevel: null,
      droppedSegments: null,
    });
    expect(
      await store.setSummary(task.taskId, {
        text: 'B',
        language: 'zh-TW',
        mode: 'custom',
        template: 'mine',
        plainText: true,
        promptSnapshot: 'Be brief',
        fallbackLevel: 3,
        droppedSegments: [0, 4],
      }),
    ).toBe(2);
    tr = await store.getTranscript(task.taskId);
    expect(tr!.summary).toMatchObject({ mode: 'custom', promptSnapshot: 'Be brief', fallbackLevel: 3, droppedSegments: [0, 4] });
    expect(await store.getTask(task.taskId)).toMatchObject({ summaryMode: 'custom', summaryTemplate: 'mine', summaryLanguage: 'zh-TW' });
    await store.resetTranscript(task.taskId);
    expect(await store.getTranscript(task.taskId)).toBeNull();
    expect(await store.countSentences(task.taskId)).toBe(0);
    expect(await store.getTask(task.taskId)).toMatchObject({ summaryMode: null, summaryTemplate: null, summaryLanguage: null });
  });
});
