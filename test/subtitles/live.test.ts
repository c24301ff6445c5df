/**
 * Floating subtitles of real live sessions: real audio (jfk.flac) at real-time pace over the
 * owner's WebSocket, PocketSphinx and Apertium, the subtitle SSE read by real HTTP clients.
 * Every final the owner gets arrives on the subtitle stream, in order, each followed by its
 * translation; a late joiner gets the finals so far as a replay; the stream ends at stop.
 * Then the scale-out case: two app instances sharing only PostgreSQL and Redis, the session
 * on A and the subtitle viewer on B.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Client,
  connect,
  event,
  jfkPcm,
  type Msg,
  startLiveApp,
  startSession,
  streamPcm,
  ticketAndKey,
  vt,
} from '../realtime/support.js';
import { api, backends, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { enableShare, exchange, openSubtitles, ownerToken, type SseEvent, type SubtitleClient } from './support.js';

/** The owner's finals and translations, from the WebSocket. */
function ownerView(cl: Client) {
  const vtMsgs = cl.messages.filter((m: Msg) => m.type === 'voice-translation');
  const finals = vtMsgs
    .filter((m) => m.data.action === 'result' && m.data.origin.is_final)
    .map((m) => [m.data.origin.sid, m.data.origin.text]);
  const translations = vtMsgs.filter((m) => m.data.action === 'translation').map((m) => [m.data.sid, m.data.language, m.data.text]);
  return { finals, translations };
}

/** The same, from a subtitle stream; checks each translation follows its final. */
function subtitleView(events: SseEvent[]) {
  const finals = events.filter((e) => e.event === 'origin' && e.data.is_final).map((e) => [e.data.sid, e.data.text]);
  const translations = events.filter((e) => e.event === 'translation').map((e) => [e.data.sid, e.data.language, e.data.text]);
  for (const tr of events.filter((e) => e.event === 'translation')) {
    const at = events.indexOf(tr);
    expect(events.findIndex((e) => e.event === 'origin' && e.data.is_final && e.data.sid === tr.data.sid)).toBeLessThan(at);
  }
  const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  return { finals, translations };
}

async function runSession(rtApp: TestApp, restApp: TestApp, opts: { lateJoiner: boolean }) {
  const { ticket, key } = await ticketAndKey(restApp);
  const cl = await connect(rtApp, [`ticket.${ticket}`]);
  const started = await startSession(cl, { translation_languages: ['es'] });
  const taskId = started.data.task_id as string;
  const token = (await ownerToken(restApp.url, key, taskId)).body.data.token as string;
  const sub = await openSubtitles(rtApp.url, taskId, token);
  expect(sub.status).toBe(200);
  // The owner pauses and resumes: the audience sees it.
  cl.send(vt('pause'));
  expect((await sub.next((e) => e.event === 'paused')).data.message).toEqual(expect.any(String));
  cl.send(vt('resume'));
  expect((await sub.next((e) => e.event === 'resumed')).data.message).toEqual(expect.any(String));
  let late: SubtitleClient | null = null;
  await streamPcm(cl, jfkPcm(), 1, async () => {
    if (!opts.lateJoiner || late) return;
    if (!cl.messages.some((m) => m.data?.action === 'translation')) return;
    const secret = (await enableShare(restApp.url, key, taskId)).body.data.share_secret as string;
    late = await openSubtitles(rtApp.url, taskId, (await exchange(restApp.url, taskId, { share_secret: secret })).body.data.token);
  });
  cl.send(vt('stop'));
  await event(cl, 'task_complete', 60_000);
  const streams = [sub, ...(late ? [late as SubtitleClient] : [])];
  await Promise.race([
    Promise.all(streams.map((s) => s.ended)),
    new Promise((_, rej) => setTimeout(() => rej(new Error('subtitle stream did not end')), 20_000)),
  ]);
  cl.ws.close();
  return { cl, sub, late: late as SubtitleClient | null, taskId, key };
}

describe.each(backends())('floating subtitles of a live session (%s)', (backend) => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('finals in order with their translations; a late joiner gets the replay; the stream ends at stop', async () => {
    t = await startLiveApp(backend);
    const { cl, sub, late, taskId, key } = await runSession(t, t, { lateJoiner: true });
    const owner = ownerView(cl);
    expect(owner.finals.length).toBeGreaterThan(1);
    expect(owner.finals.map(([, text]) => text).join(' ')).toMatch(/country/);
    const seen = subtitleView(sub.events);
    expect(seen.finals).toEqual(owner.finals);
    expect(seen.translations).toEqual(owner.translations);
    expect(seen.translations.length).toBe(owner.finals.length);
    // Interims too, and the stream opens with connected + viewers and closes after ended.
    expect(sub.events.some((e) => e.event === 'origin' && !e.data.is_final)).toBe(true);
    expect(sub.events.slice(0, 2).map((e) => e.event)).toEqual(['connected', 'viewers']);
    expect(sub.events.at(-1)).toMatchObject({ event: 'ended', data: { task_id: taskId } });
    const audience = sub.events.filter((e) => e.event === 'viewers').map((e) => e.data);
    expect(audience[0]).toEqual({ count: 0, max: 10 });
    expect(audience).toContainEqual({ count: 1, max: 10 }); // the late joiner arrived

    // The late joiner: the finals so far came as a replay (no interims before them), then the rest live.
    expect(late).not.toBeNull();
    const lateSeen = subtitleView(late!.events);
    expect(lateSeen.finals).toEqual(owner.finals);
    expect(lateSeen.translations).toEqual(owner.translations);
    const firstInterim = late!.events.findIndex((e) => e.event === 'origin' && !e.data.is_final);
    const firstFinal = late!.events.findIndex((e) => e.event === 'origin' && e.data.is_final);
    expect(firstFinal).toBeGreaterThan(-1);
    if (firstInterim >= 0) expect(firstFinal).toBeLessThan(firstInterim);
    expect(late!.events.at(-1)?.event).toBe('ended');

    // After the end: 410 for new tokens and for the stream.
    expect(await ownerToken(t.url, key, taskId)).toMatchObject({ status: 410, body: { error: 'recording_ended' } });
  }, 120_000);
});

const redisUrl = testRedisUrl();
describe.skipIf(!redisUrl || !process.env.DATABASE_URL)('floating subtitles across two app instances (PostgreSQL + Redis)', () => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('session on A, subtitle viewer on B: every final in order with its translations', async () => {
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-a-')), mkdtempSync(join(tmpdir(), 'parley-b-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const open = (dir: string, roles: string): Promise<TestApp> =>
      startLiveApp('postgres', { env: { PARLEY_ROLES: roles, REDIS_URL: redisUrl! }, reuse: { dataDir: dir, pgSchema } });
    const a = await open(dirs[0]!, 'api,realtime,worker');
    cleanup.push(() => a.close());
    const b = await open(dirs[1]!, 'api,realtime');
    cleanup.push(() => b.close());

    const { ticket, key } = await ticketAndKey(a);
    const cl = await connect(a, [`ticket.${ticket}`]);
    const taskId = (await startSession(cl, { translation_languages: ['es'] })).data.task_id as string;
    // Token and stream both from B.
    const token = (await ownerToken(b.url, key, taskId)).body.data.token as string;
    const sub = await openSubtitles(b.url, taskId, token);
    expect(sub.status).toBe(200);
    await sub.next((e) => e.event === 'viewers');
    await streamPcm(cl, jfkPcm(), 1);
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 60_000);
    await Promise.race([sub.ended, new Promise((_, rej) => setTimeout(() => rej(new Error('subtitle stream did not end')), 20_000))]);
    cl.ws.close();

    const owner = ownerView(cl);
    expect(owner.finals.length).toBeGreaterThan(1);
    const seen = subtitleView(sub.events);
    expect(seen.finals).toEqual(owner.finals);
    expect(seen.translations).toEqual(owner.translations);
    expect(sub.events.at(-1)?.event).toBe('ended');
    const task = (await api(b.url, 'GET', `/api/v1/tasks?status=all&task_ids[]=${taskId}`, { key })).body.data.tasks[0];
    expect(task.processing_status).toBe('completed');
  }, 120_000);
});
