/**
 * Imports end to end on real speech: jfk.flac converted to mp3, wav and m4a is uploaded with
 * the typed client (src/client: multipart upload, the progress SSE stream read as it happens,
 * history, exports, delete), the import ends `completed`, and a webhook receiver verifies signed
 * recording.completed then import.completed. The refusals use a raw multipart client.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParleyError } from '../../src/client/index.js';
import { importFile, nodeClient } from '../../src/client/node.js';
import type { EngineRegistry } from '../../src/engines/registry.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK, STEREO } from '../support/audio.js';
import { until } from '../support/until.js';
import { readSse } from '../tasks/harness.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { builtinImportEngines, upload, watchSse } from './support.js';

const formats = haveSharedAudio() ? { mp3: convert(JFK, 'mp3'), wav: convert(JFK, 'wav'), m4a: convert(JFK, 'm4a') } : null;

describe.skipIf(!formats).each(backends())('imports end to end (%s)', (backend) => {
  let t: TestApp;
  let rx: Receiver;
  let engines: EngineRegistry;
  beforeAll(async () => {
    engines = await builtinImportEngines();
    rx = await startReceiver();
    t = await startTestApp({ backend, engines, env: { PARLEY_PRICE_IMPORT_PER_MIN: '2', PARLEY_PRICE_SUMMARY: '5' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('refuses up front a transcription language or translation target no engine here serves, listing the served ones', async () => {
    const key = await t.app.deps.keys.createKey({ name: 'langs' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
    const stt = await upload(t.url, key.api_key, { file: { path: formats!.mp3 }, fields: { transcription_languages: '["ja-JP"]' } });
    expect(stt.status).toBe(422);
    expect(stt.body.data.details).toMatchObject({ field: 'transcription_languages', language: 'ja-JP' });
    expect(stt.body.data.details.valid_values).toContain('en');
    const mt = await upload(t.url, key.api_key, { file: { path: formats!.mp3 }, fields: { translation_languages: '["ja"]' } });
    expect(mt.status).toBe(422);
    expect(mt.body.data.details).toMatchObject({ field: 'translation_languages', language: 'ja' });
    expect(mt.body.data.details.valid_values).toContain('es');
    const db = t.app.deps.database.db;
    expect(await db.selectFrom('tasks').select('task_id').where('account_id', '=', key.account_id).execute()).toEqual([]);
  });

  // One backend is enough for the diarization path (the store calls are the same as above).
  if (backend === 'sqlite') {
    it('multi_speaker: two voices in one utterance become sentences of two speakers; history says diarized; diarization is charged', async () => {
      const key = await t.app.deps.keys.createKey({ name: 'speakers' });
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
      const res = await upload(t.url, key.api_key, { file: { path: STEREO }, fields: { recognition_mode: 'multi_speaker' } });
      expect(res.status).toBe(202);
      const events = await watchSse(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': key.api_key }).done;
      expect(events.at(-1)!.event, JSON.stringify(events.at(-1))).toBe('completed');
      const taskId = events.at(-1)!.data.task_id as string;
      const history = await readSse(`${t.url}/api/v1/sse/history/transcribe/${taskId}?api_key=${key.api_key}`);
      expect(
        (history.events.find((e) => e.event === 'init_metadata')!.data as { has_speaker_diarization: boolean }).has_speaker_diarization,
      ).toBe(true);
      const speakers = history.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { speaker_id: string }).speaker_id);
      console.log('SPEAKERS', JSON.stringify(history.events.filter((e) => e.event === 'init_sentence').map((e) => e.data)));
      expect(speakers.length).toBeGreaterThan(0);
      for (const s of speakers) expect(['1', '2']).toContain(s);
      const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: key.api_key })).body.data as { type: string; points: number }[];
      expect(usage).toEqual([
        expect.objectContaining({ type: 'import', points: t.app.deps.billing.prices.importCost(5000, { diarization: true }) }),
      ]);
    });
  }

  const cases = backend === 'sqlite' ? (['mp3', 'wav', 'm4a'] as const) : (['mp3'] as const);
  it.each(cases)(
    '%s: progress over SSE, completed, signed webhooks in order, transcript, translation, summary, one charge (the 11 s summary is too short to charge)',
    async (fmt) => {
      const key = await t.app.deps.keys.createKey({ name: fmt });
      const principal = { accountId: key.account_id, keyId: key.key_id };
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 100, pool: 'account' });
      const callback = `${rx.url}?import=${fmt}`;
      const parley = nodeClient({ baseUrl: t.url, apiKey: key.api_key });
      const accepted = await parley.imports.create({
        file: (await importFile(formats![fmt])).file,
        filename: `jfk speech.${fmt}`,
        transcription_languages: ['en-US'],
        recognition_mode: 'single',
        translation_languages: ['es'],
        summary_template: 'general-summary',
        fuzzy_correction: { 'en-US': [{ correct: 'Americans', incorrect: ['americans'] }] },
        callback_url: callback,
      });
      expect(accepted).toMatchObject({
        status: 'pending',
        progress: 0,
        stage: null,
        task_id: null,
        original_filename: `jfk speech.${fmt}`,
        error_code: null,
      });
      expect(accepted.file_size).toMatch(/^\d+(\.\d)? (B|KB|MB)$/);

      const events = await (await parley.imports.progress(accepted.import_id)).collect();
      const last = events.at(-1)!;
      if (last.event !== 'completed') throw new Error(`import ended with ${JSON.stringify(last)}`);
      const progress = events.flatMap((e) => (e.event === 'progress' ? [e.data] : []));
      const stages = progress.map((p) => p.stage);
      expect(stages).toContain('transcribing');
      expect(stages).toContain('translating');
      expect(stages).toContain('summarizing');
      const percents = progress.map((p) => p.progress);
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
      expect(new Set(percents).size).toBeGreaterThan(2);

      const done = await parley.imports.get(accepted.import_id);
      expect(done).toMatchObject({ status: 'completed', progress: 100, stage: null, error_code: null, error_message: null });
      const taskId = done.task_id!;
      expect(last.data.task_id).toBe(taskId);

      // Webhooks: recording.completed then import.completed, to the callback_url, signed with the key's secret.
      await until(
        () => rx.received.filter((r) => r.headers['x-svc-event'] && r.json.data.task_id === taskId).length === 2,
        10_000,
        'two webhooks',
      );
      const mine = rx.received.filter((r) => r.json.data.task_id === taskId);
      expect(mine.map((r) => r.json.event)).toEqual(['recording.completed', 'import.completed']);
      for (const r of mine) {
        const ts = r.headers['x-svc-timestamp'] as string;
        const expected = `sha256=${createHmac('sha256', key.webhook_secret).update(`${ts}.${r.body}`).digest('hex')}`;
        expect(r.headers['x-svc-signature']).toBe(expected);
        expect(r.headers['user-agent']).toBe('SVC-Webhook/1.0');
      }
      expect(mine[0]!.json.data).toMatchObject({
        task_id: taskId,
        type_source: 'import',
        transcription_languages: ['en-US'],
        translation_languages: ['es'],
      });
      expect(mine[1]!.json.data).toMatchObject({ import_id: accepted.import_id, task_id: taskId, name: 'jfk speech' });

      // Transcript: "country" recognized, the fuzzy rule applied, Spanish filled.
      const sentences = await t.app.deps.database.db
        .selectFrom('sentences')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('sid')
        .execute();
      // Sentence ids are 1, 2, 3 ... (the TTS stream's default sid 1 is the first sentence).
      expect(sentences.map((s) => Number(s.sid))).toEqual(sentences.map((_, i) => i + 1));
      const text = sentences.map((s) => s.origin).join(' ');
      expect(text).toContain('country');
      expect(text).toContain('fellow Americans');
      expect(text).not.toContain('americans');
      for (const s of sentences) expect(JSON.parse(s.translations ?? '{}').es).toEqual(expect.any(String));
      const spanish = await engines
        .find({ kind: 'translator', from: 'en', to: 'es' })!
        .translate(sentences[0]!.origin, { from: 'en', to: 'es' });
      expect(JSON.parse(sentences[0]!.translations!).es).toBe(spanish);

      // The task in the list, field by field.
      const tasks = await parley.tasks.list({ task_ids: [taskId] });
      expect(tasks).toEqual([
        {
          task_id: taskId,
          title: 'jfk speech',
          type: 'transcribe',
          type_source: 'import',
          duration_ms: expect.any(Number),
          duration_formatted: '00:11',
          transcription_languages: ['en-US'],
          translation_languages: ['es'],
          created_at: expect.any(String),
          processing_status: 'completed',
          is_pinned: false,
          is_unread: true,
          summary_mode: 'builtin',
          summary_template: 'general-summary',
          summary_language: 'en-US',
        },
      ]);
      expect(Math.abs(tasks[0]!.duration_ms - 11_000)).toBeLessThan(200);

      // Charges: one import row at the price table (1 minute x (2 + 1 translation language)); JFK's
      // one sentence is too short to summarize, so its summary (the sentence itself) is not charged.
      const rows = (await parley.me.usage()).data;
      const prices = t.app.deps.billing.prices;
      const importPoints = prices.importCost(11_000, { translationLanguages: 1 });
      expect(rows.filter((r) => r.type === 'import').map((r) => r.points)).toEqual([importPoints]);
      expect(rows.filter((r) => r.type === 'summary')).toEqual([]);
      expect(await t.app.deps.billing.available(principal)).toBeCloseTo(100 - importPoints, 3);

      // The task library serves the imported task: history with its summary, exports, audio.
      const history = await (await parley.tasks.history(taskId)).collect();
      expect(history.map((e) => e.event)).toEqual([
        'connected',
        'init_metadata',
        ...sentences.map(() => 'init_sentence'),
        'init_summary',
        'init_done',
      ]);
      const summary = history.flatMap((e) => (e.event === 'init_summary' ? [e.data] : []))[0]!;
      expect(summary).toMatchObject({ mode: 'builtin', template: 'general-summary', summary_language: 'en-US' });
      expect(summary.text.length).toBeGreaterThan(0);
      expect(summary.text).not.toMatch(/##|none noted/);
      const vtt = await parley.tasks.exportTranscript(taskId, { format: 'vtt', language: 'es' });
      expect(await vtt.text()).toContain(JSON.parse(sentences[0]!.translations!).es);
      const audio = await parley.tasks.audio(taskId);
      expect(audio.headers.get('content-type')).toContain('audio/mp4');
      expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(10_000);

      // Deleting the task removes the source file, the M4A copy, the rows and the import record.
      const taskDir = join(t.dataDir, 'blobs', 'tasks', taskId);
      expect(readdirSync(taskDir).sort()).toEqual(['audio.m4a', `source.${fmt}`]);
      expect((await parley.tasks.delete(taskId)).message).toEqual(expect.any(String));
      expect(existsSync(taskDir)).toBe(false);
      const gone = await parley.imports.get(accepted.import_id).catch((err: unknown) => err);
      expect(gone).toBeInstanceOf(ParleyError);
      expect(gone).toMatchObject({ status: 404 });
      const db = t.app.deps.database.db;
      expect(await db.selectFrom('sentences').select('sid').where('task_id', '=', taskId).execute()).toEqual([]);
      expect(await db.selectFrom('imports').select('import_id').where('task_id', '=', taskId).execute()).toEqual([]);
    },
    120_000,
  );
});
