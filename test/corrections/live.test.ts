/**
 * Corrections made while live, end to end with real clients: a broadcast hosted over the
 * WebSocket with PocketSphinx recognizing LibriVox speech and Apertium translating to Spanish;
 * a broadcast viewer (SSE) and a YouTube caption ingestion server on loopback; and a transcribe
 * session with a floating-subtitle viewer (SSE) and a late joiner. The host corrects a final sentence, undoes it
 * and corrects it again: every audience gets each `sentence_corrected` in order; the export of
 * the finished task has the corrected text, search finds the new word and not the old one, and
 * an undo over REST after the end restores the recognized text. The WebSocket refusals are
 * provoked one by one (code, details.action) and the session goes on.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realKey } from '../billing/support.js';
import { startCaptionServer } from '../broadcasts/caption-servers.js';
import { newBroadcast, openViewer } from '../broadcasts/support.js';
import { connect, type Msg, startLiveApp, startSession, streamPcm, vt } from '../realtime/support.js';
import { openSubtitles, ownerToken } from '../subtitles/support.js';
import { api, backends, type TestApp } from '../support/app.js';
import { librivoxClips } from '../support/audio.js';

const clips = librivoxClips().slice(0, 3);

function pcmOf(paths: string[]): Buffer {
  return Buffer.concat(
    paths.map((p) =>
      execFileSync('ffmpeg', ['-v', 'error', '-i', p, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], { maxBuffer: 64 << 20 }),
    ),
  );
}

describe.skipIf(clips.length === 0).each(backends())('corrections while live (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  it('broadcast: a correction reaches the host, a viewer, a caption sink and the export; undo restores it', async () => {
    const k = await realKey(t);
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const yt = await startCaptionServer('youtube');
    try {
      expect(
        (
          await api(t.url, 'PUT', `/api/v1/broadcasts/${b.id}/caption-sinks`, {
            key: k.key,
            body: { caption_sinks: [{ type: 'youtube', url: yt.url }] },
          })
        ).status,
      ).toBe(200);
      const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key })).body.data.ticket as string;
      const host = await connect(t, [`ticket.${ticket}`]);
      host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
      const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
      expect(started.data).toMatchObject({ action: 'session_started', phase: 'live' });
      const taskId = started.data.task_id as string;

      const viewer = await openViewer(t, b.token, '?lang=es');
      expect(viewer.status).toBe(200);

      // Speech until the first final sentence with text, and its Spanish translation.
      const streaming = streamPcm(host, pcmOf(clips.map((c) => c.path)), 4);
      const final = await host.next(
        (m) => m.data?.action === 'result' && m.data.origin.is_final && m.data.origin.text.trim() !== '',
        60_000,
      );
      const sid = final.data.origin.sid as number;
      const recognized = final.data.origin.text as string;
      await host.next((m) => m.data?.action === 'translation' && m.data.sid === sid && m.data.is_final, 30_000);

      // The refusals, each with its code and the action; nothing is corrected by them.
      const refuse = async (data: Record<string, unknown>, code: string, action = 'correct_sentence') => {
        host.send(vt(action, data));
        const e = await host.next((m) => m.type === 'error' && m.data.details?.action === action, 10_000);
        expect(e.data.error_code).toBe(code);
      };
      await refuse({ sid: 9999, text: 'Nobody said this.' }, 'sentence_not_found');
      await refuse({ sid, text: '   ' }, 'sentence_text_empty');
      await refuse({ sid, text: 'y'.repeat(2001) }, 'sentence_text_too_long');
      await refuse({ sid: 'one', text: 'Hello.' }, 'validation_failed');
      await refuse({ sid, text: 'Stale edit.', revision: 3 }, 'sentence_revision_conflict');
      await refuse({ sid }, 'sentence_nothing_to_undo', 'undo_correction');

      // Correct, undo, correct again.
      const corrected = 'The gentleman was not an unkind young man.';
      host.send(vt('correct_sentence', { sid, text: corrected, revision: 0 }));
      const first = await host.next((m) => m.data?.action === 'sentence_corrected', 30_000);
      expect(first.data).toMatchObject({
        task_id: taskId,
        sid,
        revision: 1,
        kind: 'correction',
        text: corrected,
        previous_text: recognized,
      });
      expect(first.data.translations.es).toMatch(/señor/i);
      host.send(vt('undo_correction', { sid, revision: 1 }));
      const undone = await host.next((m) => m.data?.action === 'sentence_corrected', 30_000);
      expect(undone.data).toMatchObject({ sid, revision: 2, kind: 'undo', text: recognized, previous_text: corrected });
      const final2 = 'The gentleman was a generous young man.';
      host.send(vt('correct_sentence', { sid, text: final2, revision: 2 }));
      const second = await host.next((m) => m.data?.action === 'sentence_corrected', 30_000);
      expect(second.data).toMatchObject({ sid, revision: 3, kind: 'correction', text: final2 });

      // The broadcast viewer: the three changes in order, with the Spanish text, no new caption.
      type Seen = { event: string; data: Record<string, unknown> };
      const seenBy = async (next: (pred: (e: Seen) => boolean, ms?: number) => Promise<Seen>) => {
        const out: Array<[number, string, string]> = [];
        for (let i = 0; i < 3; i++) {
          const e = await next((x) => x.event === 'sentence_corrected', 20_000);
          out.push([e.data.revision as number, e.data.kind as string, e.data.text as string]);
        }
        return out;
      };
      const expected: Array<[number, string, string]> = [
        [1, 'correction', corrected],
        [2, 'undo', recognized],
        [3, 'correction', final2],
      ];
      expect(await seenBy((p, ms) => viewer.next(p, ms))).toEqual(expected);
      const onViewer = viewer.events.filter((e) => e.event === 'sentence_corrected');
      expect(onViewer[0]!.data).toMatchObject({
        sid,
        translations: { es: first.data.translations.es },
        start_time: expect.stringMatching(/^\d\d:\d\d$/),
      });

      await streaming;
      host.send(vt('stop'));
      await host.next((m) => m.data?.action === 'task_complete', 90_000);
      host.ws.close();

      // The caption sink got the corrected sentence again (a sink cannot edit a line it showed).
      for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
        if (
          yt
            .accepted()
            .flatMap((p) => p.captions)
            .some((c) => c.text.replaceAll('<br>', ' ').includes('generous'))
        )
          break;
      }
      const sent = yt.accepted().flatMap((p) => p.captions.map((c) => c.text.replaceAll('<br>', ' ').replace(/\s+/g, ' ')));
      expect(sent).toEqual(expect.arrayContaining([corrected, final2]));

      // Billed as the retranslate action of one sentence: the two corrections, not the undo.
      const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key })).body.data as Array<{ type: string; task_id: string }>;
      expect(usage.filter((u) => u.type === 'retranslate' && u.task_id === taskId)).toHaveLength(2);

      // The stored task: the export has the last correction (and its Spanish), search the new word only.
      const txt = await (await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export`, { headers: { 'x-api-key': k.key } })).text();
      expect(txt).toContain(final2);
      const es = await (
        await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export?language=es`, { headers: { 'x-api-key': k.key } })
      ).text();
      expect(es).toContain(second.data.translations.es);
      const search = async (q: string) =>
        ((await api(t.url, 'GET', `/api/v1/search?q=${q}`, { key: k.key })).body.data as Array<{ task_id: string; sid: number }>).filter(
          (h) => h.task_id === taskId && h.sid === sid,
        ).length;
      expect(await search('generous')).toBeGreaterThan(0);
      expect(await search('unkind')).toBe(0);

      // Undo after the end (REST) goes back through the corrections made live.
      const u = await api(t.url, 'POST', `/api/v1/tasks/${taskId}/sentences/${sid}/undo`, { key: k.key, body: { revision: 3 } });
      expect(u.status).toBe(200);
      expect(u.body.data).toMatchObject({ revision: 4, kind: 'undo', text: recognized });
      const back = await (await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export`, { headers: { 'x-api-key': k.key } })).text();
      expect(back).not.toContain(final2);
      expect(await search('generous')).toBe(0);
      viewer.close();
    } finally {
      await yt.close();
    }
  }, 240_000);
  it('transcribe session: the floating-subtitle viewer gets each correction, replayed to a late joiner after its sentence', async () => {
    const k = await realKey(t);
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
    const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key })).body.data.ticket as string;
    const host = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(host, { translation_languages: ['es'], realtime_translation: true, audio_format: 'pcm' });
    const taskId = started.data.task_id as string;
    const token = (await ownerToken(t.url, k.key, taskId)).body.data.token as string;
    const subtitles = await openSubtitles(t.url, taskId, token);
    expect(subtitles.status).toBe(200);

    const streaming = streamPcm(host, pcmOf(clips.slice(0, 2).map((c) => c.path)), 4);
    const final = await host.next((m) => m.data?.action === 'result' && m.data.origin.is_final && m.data.origin.text.trim() !== '', 60_000);
    const sid = final.data.origin.sid as number;
    host.send(vt('correct_sentence', { sid, text: 'He was a splendid young man.' }));
    const corrected = await host.next((m) => m.data?.action === 'sentence_corrected', 30_000);
    expect(corrected.data).toMatchObject({ sid, revision: 1, text: 'He was a splendid young man.' });
    // The start as the result showed it (mm:ss, formatted at the edge; no stream field leaks out).
    expect(corrected.data.start_time).toBe(final.data.origin.start_time);
    expect(corrected.data).not.toHaveProperty('start_ms');
    const seen = await subtitles.next((e) => e.event === 'sentence_corrected', 20_000);
    const { action: _action, ...payload } = corrected.data;
    expect(seen.data).toEqual(payload);
    expect(seen.id).toMatch(/^\d+$/);
    const origin = subtitles.events.find((e) => e.event === 'origin' && e.data.sid === sid && e.data.is_final)!;
    expect(Number(seen.id)).toBeGreaterThan(Number(origin.id));
    // The live search index has the corrected words within 2 s, before the session ends.
    const found = async () =>
      ((await api(t.url, 'GET', '/api/v1/search?q=splendid', { key: k.key })).body.data as Array<{ task_id: string; sid: number }>).some(
        (h) => h.task_id === taskId && h.sid === sid,
      );
    await expect.poll(found, { timeout: 2000, interval: 100 }).toBe(true);

    // The same text again: the sender is answered with the revision as it is; no audience hears of it.
    host.send(vt('correct_sentence', { sid, text: 'He was a splendid young man.' }));
    const same = await host.next((m) => m.data?.action === 'sentence_corrected', 30_000);
    expect(same.data).toMatchObject({ sid, revision: 1, text: 'He was a splendid young man.' });

    // A late joiner's replay: the sentence, then its correction.
    const late = await openSubtitles(t.url, taskId, token);
    const replayed = await late.next((e) => e.event === 'sentence_corrected', 10_000);
    expect(replayed.data.text).toBe('He was a splendid young man.');
    const at = (e: { event: string; data: unknown }) => late.events.indexOf(e as never);
    expect(at(late.events.find((e) => e.event === 'origin' && e.data.sid === sid && e.data.is_final)!)).toBeLessThan(at(replayed));

    await streaming;
    host.send(vt('stop'));
    await host.next((m) => m.data?.action === 'task_complete', 90_000);
    host.ws.close();
    expect(subtitles.events.filter((e) => e.event === 'sentence_corrected')).toHaveLength(1);
    subtitles.close();
    late.close();
    const txt = await (await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export`, { headers: { 'x-api-key': k.key } })).text();
    expect(txt).toContain('He was a splendid young man.');
  }, 180_000);
});
