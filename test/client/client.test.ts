/**
 * The typed client (src/client) against a real server with the built-in engines: every method
 * group on real data (an import of jfk, a live session fed from the file, a broadcast and its
 * viewer stream, SSE retranslation, summaries and speech), errors as ParleyError in each body
 * shape, and, at the end, every operation of the served OpenAPI document called at least once
 * through the client (a new route without a client method fails here).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OperationKey, ParleyError } from '../../src/client/index.js';
import { importFile, nodeClient, PCM_BYTES_PER_SECOND, pcmFrames } from '../../src/client/node.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { onAir } from '../broadcasts/support.js';
import { liveEngines } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';

/** Runs `fn` and returns the ParleyError it throws (fails if it does not throw one). */
async function failure(fn: () => Promise<unknown>): Promise<ParleyError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ParleyError) return err;
    throw err;
  }
  throw new Error('expected a ParleyError');
}

describe.skipIf(!haveSharedAudio())('typed client against a real server', () => {
  let t: TestApp;
  let parley: ReturnType<typeof nodeClient>;
  const called = new Set<OperationKey>();
  let taskId = '';
  let importId = '';

  beforeAll(async () => {
    t = await startTestApp({ engines: await liveEngines([pocketsphinxFileFactory, espeakFactory]) });
    const key = await t.app.deps.keys.createKey({ name: 'client' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 1000, pool: 'account' });
    parley = nodeClient({ baseUrl: t.url, realtimeUrl: t.url, apiKey: key.api_key, onRequest: (op) => called.add(op) });
  }, 60_000);
  afterAll(() => t?.close());

  it('version, ticket and account', async () => {
    expect(await parley.version()).toMatchObject({ service: 'svc-api', version: expect.any(String) });
    expect((await parley.realtimeVersion()).service).toMatch(/^svc-/);
    const ticket = await parley.ticket();
    expect(ticket.ticket).toHaveLength(32);
    expect(ticket.expires_in).toBe(60);
    expect((await parley.me.key()).name).toBe('client');
    expect((await parley.me.plan()).mode).toBe('credit');
    expect((await parley.me.creditLots())[0]).toMatchObject({ pool: 'account', remaining_points: 1000 });
    const usage = await parley.me.usage({ page: 1, per_page: 5 });
    expect(usage.meta).toMatchObject({ current_page: 1, per_page: 5 });
  });

  it('errors: ParleyError with code, status and request id, whichever body shape the route uses', async () => {
    const anonymous = nodeClient({ baseUrl: t.url });
    const noKey = await failure(() => anonymous.me.plan());
    expect(noKey).toMatchObject({ code: 'auth_missing_api_key', status: 401, severity: 'fatal' });
    expect(noKey.requestId).toEqual(expect.any(String));
    // {errorCode, message} shape of the summary-template routes.
    expect(await failure(() => parley.summaryTemplates.get('no-such-template'))).toMatchObject({ code: 'template_not_found', status: 404 });
    // {error: <code>} shape of the subtitle-token routes.
    expect(await failure(() => parley.subtitles.feedToken(randomUUID()))).toMatchObject({ status: 404 });
    const missing = await failure(() => parley.tasks.get(randomUUID()));
    expect(missing).toMatchObject({ code: 'recording_not_found', status: 404 });
    expect(missing.details).toEqual(expect.anything());
    const unreachable = nodeClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'svc_x' });
    expect(await failure(() => unreachable.version())).toMatchObject({ code: 'network_error', status: 0 });
  });

  it('summary templates, glossary validation, voices and a voice sample', async () => {
    const templates = await parley.summaryTemplates.list({ category: 'all' });
    expect(templates.map((x) => x.slug)).toContain('general-summary');
    expect((await parley.summaryTemplates.get('general-summary')).system_prompt).toEqual(expect.any(String));
    const checked = await parley.glossary.validate({ terminology: { en: [{ term: 'Parley' }] } });
    expect(checked).toMatchObject({ valid: true, terminology: 1 });
    expect(await failure(() => parley.glossary.validate({}))).toMatchObject({ code: 'config_empty', status: 400 });
    const languages = await parley.languages();
    expect(languages.tts).toContain('es');
    const voices = await parley.tts.voices('es');
    expect(voices.voices.length).toBeGreaterThan(0);
    const sample = await parley.tts.sample(voices.voices[0]!.voice_name);
    expect(sample.type).toBe('audio/mpeg');
    expect(sample.size).toBeGreaterThan(1000);
  });

  it('imports: quota check, upload, progress to completion, read back', async () => {
    expect(await parley.imports.checkQuota(11_000)).toMatchObject({ allowed: true, duration_minutes: 1 });
    const created = await parley.imports.create({
      ...(await importFile(convert(JFK, 'wav'))),
      transcription_languages: ['en-US'],
      translation_languages: ['es'],
      recognition_mode: 'single',
      summary_template: 'general-summary',
    });
    expect(created).toMatchObject({ status: 'pending', progress: 0, task_id: null });
    importId = created.import_id;
    const progress: number[] = [];
    const done = await parley.imports.waitFor(importId, (p) => progress.push(p.progress));
    expect(done.status).toBe('completed');
    taskId = done.task_id!;
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect((await parley.imports.get(importId)).task_id).toBe(taskId);
    expect((await parley.imports.list({ per_page: 5 })).data.map((i) => i.import_id)).toContain(importId);
    const refused = await failure(() =>
      parley.imports.create({ file: new Blob(['not audio']), transcription_languages: ['en-US'], recognition_mode: 'single' }),
    );
    expect(refused).toMatchObject({ code: 'import_invalid_format', status: 415 });
  }, 180_000);

  it('tasks: list, detail, history stream, edits, exports, audio', async () => {
    expect((await parley.tasks.list({ status: 'all' })).map((x) => x.task_id)).toContain(taskId);
    expect((await parley.tasks.list({ status: 'all', task_ids: [taskId] })).length).toBe(1);
    expect((await parley.tasks.get(taskId)).processing_status).toBe('completed');
    const history = await (await parley.tasks.history(taskId)).collect();
    const names = history.map((e) => e.event);
    expect(names.slice(0, 2)).toEqual(['connected', 'init_metadata']);
    expect(names.at(-1)).toBe('init_done');
    const sentences = history.flatMap((e) => (e.event === 'init_sentence' ? [e.data] : []));
    expect(sentences.map((s) => s.origin).join(' ')).toMatch(/country/i);
    expect(sentences[0]!.translations?.es).toEqual(expect.any(String));
    // Search (extension) finds the task by a word of its transcript.
    const found = (await parley.search({ q: 'country', per_page: 50 })) as unknown as { data: Array<{ task_id: string }> };
    expect(found.data.map((h) => h.task_id)).toContain(taskId);

    expect(await parley.tasks.pin(taskId, true)).toEqual({ is_pinned: true });
    expect(await parley.tasks.markRead(taskId)).toEqual({ is_unread: false });
    expect((await parley.tasks.rename(taskId, 'JFK')).data).toMatchObject({ name: 'JFK', name_source: 'user' });
    expect(await parley.tasks.pinMany([taskId], false)).toEqual({ affected_count: 1 });
    const srt = await parley.tasks.exportTranscript(taskId, { format: 'srt' });
    expect(await srt.text()).toMatch(/00:00:0\d,\d{3} --> /);
    expect((await parley.tasks.exportAudio(taskId, { format: 'm4a' })).size).toBeGreaterThan(10_000);
    const part = await parley.tasks.audio(taskId, 'bytes=0-99');
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    expect(parley.tasks.audioUrl(taskId)).toContain(`/api/v1/sse/audio/${taskId}?api_key=svc_`);
    // Speaker edits need a multi-speaker recording: the spec's 422, thrown as ParleyError.
    for (const edit of [
      () => parley.tasks.renameSpeaker(taskId, { speaker_id: 'A', new_label: 'Ann' }),
      () => parley.tasks.reassignSpeaker(taskId, { sid: 1, target_speaker_id: 'B' }),
      () => parley.tasks.mergeSpeakers(taskId, { source_speaker_id: 'A', target_speaker_id: 'B' }),
    ]) {
      expect(await failure(edit)).toMatchObject({ code: 'speaker_diarization_required', status: 422 });
    }
    // Corrections (extension): a sentence corrected, its history, undone.
    const corrected = await parley.tasks.correctSentence(taskId, 1, { text: 'And so, my fellow citizens.', revision: 0 });
    expect(corrected).toMatchObject({ sid: 1, revision: 1, text: 'And so, my fellow citizens.' });
    expect((await parley.tasks.sentenceRevisions(taskId, 1)).revisions.map((r) => r.kind)).toEqual(['recognized', 'correction']);
    expect(await parley.tasks.undoCorrection(taskId, 1)).toMatchObject({ revision: 2, kind: 'undo' });
  });

  it('SSE: retranslation, summaries, speech', async () => {
    expect(await (await parley.retranslate.task(taskId, 'es')).until('done')).toMatchObject({ totalFailed: 0 });
    const one = await (await parley.retranslate.sentence(taskId, 1, 'es')).collect();
    expect(one.map((e) => e.event)).toEqual(['translation', 'done']);

    const texts: string[] = [];
    const preview = await (await parley.summaries.preview(taskId, { mode: 'builtin', template: 'general-summary' })).until('done', (e) => {
      if (e.event === 'summary_regeneration') texts.push(e.data.text);
    });
    // jfk is short: the built-in summary may come back whole (too_short); a regeneration is billed all the same.
    expect(preview).toMatchObject({ task_id: taskId, persisted: false, mode: 'builtin', billed: true });
    expect(texts.at(-1)).toBe(preview.final_content);
    const saved = await (await parley.summaries.regenerate(taskId, { mode: 'builtin', template: 'general-summary' })).until('done');
    expect(saved.persisted).toBe(true);
    const text = `${sentencesOf(8)}`;
    expect((await (await parley.summaries.adhoc({ mode: 'builtin', template: 'general-summary', text })).until('done')).task_id).toBeNull();
    const translated = await (
      await parley.summaries.translate({ text: 'The country is strong.', targetLang: 'es', sourceLang: 'en' })
    ).until('done');
    expect(translated).toMatchObject({ source_language: 'en', target_language: 'es', persisted: false });
    expect((await (await parley.summaries.retranslate(taskId, 'es')).until('done')).persisted).toBe(true);
    // An error event ends `until` with the error's code.
    const refused = await failure(async () =>
      (await parley.summaries.preview(taskId, { mode: 'builtin', template: 'nope' })).until('done'),
    );
    expect(refused).toMatchObject({ code: 'sse_template_not_found', status: 404 });

    const speech = await (await parley.tts.stream(taskId, { language: 'es', sid: 1, length: 1 })).collect();
    expect(speech.map((e) => e.event)).toEqual(['connected', 'tts_audio', 'tts_done']);
    const audio = speech[1]!;
    if (audio.event !== 'tts_audio') throw new Error('not audio');
    expect(Buffer.from(audio.data.audio, 'base64').length).toBeGreaterThan(1000);
  }, 120_000);

  it('live session from a file: typed events, pause/resume, floating subtitles while it runs, stop', async () => {
    const finals: string[] = [];
    const session = await parley.live.start({
      type: 'transcribe',
      audio_format: 'pcm',
      transcription_languages: ['en-US'],
      translation_languages: ['es'],
    });
    session.on('result', (d) => {
      if (d.origin.is_final) finals.push(d.origin.text);
    });
    const liveTask = session.taskId!;
    expect(liveTask).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.resumeToken).toEqual(expect.any(String));

    // Floating subtitles of the running recording: owner feed, share, audience token, revoke.
    const feed = await parley.subtitles.feedToken(liveTask);
    expect(feed.token).toHaveLength(48);
    const sub = await parley.subtitles.stream(liveTask, feed.token);
    const subIterator = sub[Symbol.asyncIterator]();
    expect((await subIterator.next()).value).toMatchObject({ event: 'connected', data: { task_id: liveTask, role: 'owner' } });
    const share = await parley.subtitles.share(liveTask);
    expect((await parley.subtitles.audienceToken(liveTask, share.share_secret)).token).toHaveLength(48);
    expect(await parley.subtitles.revokeShare(liveTask)).toEqual({ revoked: true });

    expect((await session.pause()).status).toBe('paused');
    // Refusals that are warnings reject the helper instead of waiting for a status that never comes.
    expect(await failure(() => session.pause())).toMatchObject({ code: 'session_already_paused', severity: 'warning', status: 0 });
    expect((await session.resume()).status).not.toBe('paused');
    expect(await failure(() => session.resume())).toMatchObject({ code: 'session_not_paused', severity: 'warning' });
    await session.streamAudio(pcmFrames(JFK), { bytesPerSecond: PCM_BYTES_PER_SECOND, speed: 4 });
    const { taskId: stopped } = await session.stop();
    expect(stopped).toBe(liveTask);
    expect(finals.join(' ')).toMatch(/country/i);
    // The subtitle stream saw captions and ends with the recording.
    const rest: string[] = [];
    for (let r = await subIterator.next(); !r.done; r = await subIterator.next()) rest.push(r.value.event);
    expect(rest).toContain('origin');
    expect(rest.at(-1)).toBe('ended');
    session.close();
    expect((await session.closed).code).toBeGreaterThan(0);
  }, 180_000);

  it('broadcasts and the viewer side', async () => {
    const b = await parley.broadcasts.create({ transcription_languages: ['en-US'], translation_languages: ['es'], name: 'Client' });
    expect(b.token).toMatch(/^[a-z0-9]{4}$/);
    expect((await parley.broadcasts.list()).data.map((x) => x.id)).toContain(b.id);
    expect((await parley.broadcasts.get(b.id)).name).toBe('Client');
    expect((await parley.broadcasts.update(b.id, { max_viewers: 10 })).max_viewers).toBe(10);
    expect(await parley.broadcasts.setCaptionSinks(b.id, [])).toEqual([]);
    expect(await parley.broadcasts.captionSinks(b.id)).toEqual([]);
    expect(await parley.viewer.get(b.token)).toMatchObject({ access_type: 'public', is_live: false });
    expect((await parley.viewer.verify(b.token, 'anything')).viewer_access_token).toBeNull();
    // Not on air until a host starts it: the refusal carries details.reason.
    expect(await failure(() => parley.viewer.stream(b.token, { lang: 'es' }))).toMatchObject({
      code: 'broadcast_session_not_found',
      status: 404,
      details: { reason: 'not_started' },
    });
    await onAir(t, b.id);
    const stream = await parley.viewer.stream(b.token, { lang: 'es' });
    expect((await stream.collect('connected')).at(-1)).toMatchObject({
      event: 'connected',
      data: { phase: 'standby', available_langs: ['es'] },
    });
    stream.close();
    await parley.broadcasts.revoke(b.id);
    expect(await failure(() => parley.viewer.get(b.token))).toMatchObject({ code: 'broadcast_token_revoked', status: 401 });
  });

  it('force-fail, retry and delete', async () => {
    expect(await failure(() => parley.tasks.retry(taskId))).toMatchObject({ status: 422 });
    expect(await failure(() => parley.tasks.forceFail(taskId))).toMatchObject({ status: 422 });
    const again = await parley.imports.create({
      ...(await importFile(convert(JFK, 'wav'))),
      transcription_languages: ['en-US'],
      recognition_mode: 'single',
    });
    const second = (await parley.imports.waitFor(again.import_id)).task_id!;
    expect((await parley.tasks.deleteMany([second])).data).toMatchObject({ deleted_count: 1 });
    expect((await parley.tasks.delete(taskId)).message).toEqual(expect.any(String));
    expect(await failure(() => parley.tasks.get(taskId))).toMatchObject({ code: 'recording_not_found' });
  }, 180_000);

  it('every operation of the OpenAPI document was called through the client', async () => {
    const doc = await api(t.url, 'GET', '/api/v1/openapi.json');
    const ops = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}` as OperationKey),
    );
    expect(ops.filter((op) => !called.has(op))).toEqual([]);
  });
});

function sentencesOf(n: number): string {
  const s = [
    'The meeting opened with the budget.',
    'Costs rose in the spring.',
    'The team agreed to review suppliers.',
    'A decision is due next week.',
  ];
  return Array.from({ length: n }, (_, i) => s[i % s.length]).join(' ');
}
