import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, backends } from '../support/app.js';
import { readSse, sampleM4a, seedTask, startTaskApp, type TaskTestApp } from './harness.js';

describe.each(backends())('task SSE: history and audio (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  describe('GET /api/v1/sse/history/transcribe/{id}', () => {
    it('sends connected, init_metadata, init_sentence..., one init_summary, init_done in that order', async () => {
      const task = await seedTask(t, {
        title: 'Standup',
        type: 'conversation',
        recognitionMode: 'multi_speaker',
        transcriptionLanguages: ['en-US'],
        translationLanguages: ['fr', 'de'],
        sentences: [
          { sid: 1, origin: 'Hello', startMs: 0, endMs: 1000, speakerId: '1', language: 'en-US' },
          { sid: 2, origin: 'World', startMs: 75_000, endMs: 76_000, speakerId: '2' },
        ],
      });
      await t.mod.store.setTranslations(task.taskId, 'fr', [
        { sid: 1, text: 'Bonjour' },
        { sid: 2, error: 'llm_timeout' },
      ]);
      await t.mod.store.setSummary(task.taskId, {
        text: 'Greetings.',
        language: 'en-US',
        mode: 'custom',
        template: 'my-slug',
        plainText: true,
        promptSnapshot: 'Summarize briefly',
        fallbackLevel: 3,
        droppedSegments: [1],
      });
      await api(t.url, 'PATCH', `/api/v1/tasks/${task.taskId}/speakers/rename`, {
        key: t.keyA,
        body: { speaker_id: '2', new_label: 'Bob' },
      });
      const r = await readSse(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { 'x-api-key': t.keyA });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/event-stream');
      expect(r.events.map((e) => e.event)).toEqual([
        'connected',
        'init_metadata',
        'init_sentence',
        'init_sentence',
        'init_summary',
        'init_done',
      ]);
      expect(r.events[1]!.data).toEqual({
        task_id: task.taskId,
        title: 'Standup',
        created_at: task.createdAt,
        type: 'conversation',
        has_speaker_diarization: true,
        transcription_languages: ['en-US'],
        translation_languages: ['fr', 'de'],
        summary_template: 'my-slug',
        summary_language: 'en-US',
      });
      expect(r.events[2]!.data).toEqual({
        sid: 1,
        origin: 'Hello',
        translations: { fr: 'Bonjour' },
        start_time: '00:00',
        speaker_id: '1',
        speaker_label: '1',
        language: 'en-US', // the language it was recognized in, where the recording says (Parley)
      });
      // translation_errors appears only for translated-but-failed languages; labels are current.
      expect(r.events[3]!.data).toEqual({
        sid: 2,
        origin: 'World',
        translations: null,
        translation_errors: { fr: 'llm_timeout' },
        start_time: '01:15',
        speaker_id: '2',
        speaker_label: 'Bob',
      });
      expect(r.events[4]!.data).toEqual({
        text: 'Greetings.',
        mode: 'custom',
        template: 'my-slug',
        plain_text: true,
        summary_language: 'en-US',
        prompt_snapshot: 'Summarize briefly',
        fallback_level: 3,
        dropped_segments: [1],
      });
      expect(r.events[5]!.data).toEqual({ totalSentences: 2 });
    });

    it('works for a task without transcript or summary: init_summary with null fields and empty text', async () => {
      const task = await seedTask(t, { type: 'record', status: 'recording' });
      const r = await readSse(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}?api_key=${t.keyA}`);
      expect(r.events.map((e) => e.event)).toEqual(['connected', 'init_metadata', 'init_summary', 'init_done']);
      expect(r.events[1]!.data).toMatchObject({ has_speaker_diarization: false, summary_template: null, summary_language: null });
      expect(r.events[2]!.data).toEqual({ text: '', mode: null, template: null, plain_text: null, summary_language: null });
      expect(r.events[3]!.data).toEqual({ totalSentences: 0 });
    });

    it('errors before the stream are JSON: 401 without key, 404 for foreign, unknown and malformed ids', async () => {
      const task = await seedTask(t);
      const none = await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${task.taskId}`);
      expect(none.status).toBe(401);
      expect(none.body.data.error_code).toBe('auth_missing_api_key');
      for (const path of [task.taskId, '00000000-0000-4000-8000-000000000000', 'nope']) {
        const r = await api(t.url, 'GET', `/api/v1/sse/history/transcribe/${path}`, { key: t.keyB });
        expect(r.status).toBe(404);
        expect(r.body.data.error_code).toBe('recording_not_found');
      }
    });

    it('streams a long transcript in pages', async () => {
      const sentences = Array.from({ length: 4500 }, (_, i) => ({
        sid: i + 1,
        origin: `s${i + 1}`,
        startMs: i * 1000,
        endMs: i * 1000 + 900,
      }));
      const task = await seedTask(t, { sentences });
      const r = await readSse(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { 'x-api-key': t.keyA });
      const sids = r.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { sid: number }).sid);
      expect(sids).toEqual(sentences.map((s) => s.sid));
      expect(r.events.at(-1)).toEqual({ event: 'init_done', data: { totalSentences: 4500 } });
    });
  });

  describe('GET /api/v1/sse/audio/{id}', () => {
    let taskId: string;
    const audio = () => sampleM4a();
    beforeAll(async () => {
      taskId = (await seedTask(t, { audio: true })).taskId;
    });
    const get = (headers: Record<string, string> = {}, key = t.keyA) =>
      fetch(`${t.url}/api/v1/sse/audio/${taskId}`, { headers: { 'x-api-key': key, ...headers } });

    it('200 with the whole M4A, audio/mp4, Content-Length and Accept-Ranges', async () => {
      const r = await get();
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('audio/mp4');
      expect(r.headers.get('accept-ranges')).toBe('bytes');
      expect(Number(r.headers.get('content-length'))).toBe(audio().length);
      expect(Buffer.from(await r.arrayBuffer()).equals(audio())).toBe(true);
    });

    it('HEAD answers the same headers without a body (players probe with it)', async () => {
      const r = await fetch(`${t.url}/api/v1/sse/audio/${taskId}`, { method: 'HEAD', headers: { 'x-api-key': t.keyA } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('audio/mp4');
      expect(Number(r.headers.get('content-length'))).toBe(audio().length);
      expect((await r.arrayBuffer()).byteLength).toBe(0);
    });

    it('206 for one range (first-last, open-ended, suffix, last past the end)', async () => {
      const size = audio().length;
      const cases: [string, number, number][] = [
        ['bytes=0-99', 0, 99],
        ['bytes=100-', 100, size - 1],
        ['bytes=-50', size - 50, size - 1],
        [`bytes=10-${size + 1000}`, 10, size - 1],
      ];
      for (const [range, start, end] of cases) {
        const r = await get({ range });
        expect(r.status, range).toBe(206);
        expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
        expect(Number(r.headers.get('content-length'))).toBe(end - start + 1);
        expect(r.headers.get('content-type')).toBe('audio/mp4');
        expect(Buffer.from(await r.arrayBuffer()).equals(audio().subarray(start, end + 1))).toBe(true);
      }
    });

    it('ignores malformed or multiple (overlapping) ranges with a 200; 416 when past the end', async () => {
      const size = audio().length;
      for (const range of ['bytes=abc', 'items=0-5', 'bytes=5-1', 'bytes=0-10,5-20', 'bytes=-']) {
        const r = await get({ range });
        expect(r.status, range).toBe(200);
        expect(Number(r.headers.get('content-length'))).toBe(size);
        await r.arrayBuffer();
      }
      for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
        const r = await get({ range });
        expect(r.status, range).toBe(416);
        expect(r.headers.get('content-range')).toBe(`bytes */${size}`);
        await r.arrayBuffer();
      }
    });

    it('accepts the key as api_key query; 425 before audio exists; 404 for foreign tasks', async () => {
      const q = await fetch(`${t.url}/api/v1/sse/audio/${taskId}?api_key=${t.keyA}`);
      expect(q.status).toBe(200);
      await q.arrayBuffer();
      const pending = await seedTask(t, { status: 'recording' });
      const r = await api(t.url, 'GET', `/api/v1/sse/audio/${pending.taskId}`, { key: t.keyA });
      expect(r.status).toBe(425);
      expect(r.body.data.error_code).toBe('recording_audio_not_ready');
      const foreign = await api(t.url, 'GET', `/api/v1/sse/audio/${taskId}`, { key: t.keyB });
      expect(foreign.status).toBe(404);
      expect(foreign.body.data.error_code).toBe('recording_not_found');
    });
  });
});
