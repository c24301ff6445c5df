/**
 * GET /broadcast/{token}/text with real HTTP clients while a real host streams jfk.flac
 * (PocketSphinx, Apertium): connected, standby, phase_changed, recording_started, origin and
 * translation (lang filter), late-joiner replay of finals only, paused/resumed/ended; every
 * connection error; the queue at max_viewers with admission; revoke while watching. The
 * connection errors, kick and revoke are read through the typed client (src/client). In
 * process, and with REDIS_URL on Redis (the bus and the seats' presence are then Redis's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParleyError, type SseStream } from '../../src/client/index.js';
import { nodeClient } from '../../src/client/node.js';
import { connect, event, jfkPcm, type Msg, startLiveApp, streamPcm, vt, waitFor } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { expectError, newBroadcast, onAir, openViewer, realKey, type ViewerClient } from './support.js';

const pcm = jfkPcm();
const redisUrl = testRedisUrl();
const kinds: Array<[string, Record<string, string>]> = [['in-process', {}]];
if (redisUrl) kinds.push(['redis', { REDIS_URL: redisUrl }]);

/** Reads a client SSE stream event by event: `next(name)` skips to the next event so named. */
function reader<E>(stream: SseStream<E>) {
  const it = stream[Symbol.asyncIterator]();
  return {
    async next<N extends keyof E & string>(name: N): Promise<E[N]> {
      for (;;) {
        const r = await it.next();
        if (r.done) throw new Error(`the stream ended before ${name}`);
        if (r.value.event === name) return r.value.data as E[N];
      }
    },
    async end(): Promise<void> {
      while (!(await it.next()).done) {}
    },
  };
}

describe.each(kinds)('broadcast viewer stream (sqlite, %s, real host)', (_name, backendEnv) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    // Viewers from many addresses (X-Forwarded-For): one address holds only its share of seats and queue places.
    t = await startLiveApp('sqlite', { env: { PARLEY_TRUST_PROXY: '1', ...backendEnv } });
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 100, pool: 'account' });
  });
  afterAll(() => t?.close());

  async function hostSocket() {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    return connect(t, [`ticket.${r.body.data.ticket}`]);
  }
  const answer = (m: Msg) => m.data?.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning');
  const names = (v: ViewerClient) => v.events.map((e) => e.event);

  it('not on air yet: 404 broadcast_session_not_found (not_started, Retry-After) until a host starts it; then standby, go-live, captions per language, late joiner replay, pause, resume, end, 410', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es', 'fr'] });
    // Created, no host yet: no broadcast session to read. Asking again is worth it (Retry-After), unlike an unknown token.
    const tooEarly = await openViewer(t, b.token);
    expectError(tooEarly, 404, 'broadcast_session_not_found');
    expect(tooEarly.body.data).toMatchObject({
      severity: expect.any(String),
      details: { reason: 'not_started', status: 'pending' },
      request_id: expect.any(String),
    });
    expect(tooEarly.headers.get('retry-after')).toBe('10');
    // The public view says the same: pending, not live.
    expect((await api(t.url, 'GET', `/api/v1/viewer/broadcasts/${b.token}`)).body.data).toMatchObject({
      status: 'pending',
      is_live: false,
    });

    const host = await hostSocket();
    host.send(
      vt('start', {
        type: 'broadcast',
        broadcast_token: b.token,
        audio_format: 'pcm',
        broadcast_phase: 'standby',
        standby_message: 'Soon',
      }),
    );
    expect((await host.next(answer, 20_000)).data.action).toBe('session_started');
    // On air in standby: viewers connect and get the host's standby message (with its translations).
    const early = await openViewer(t, b.token);
    expect(early.status).toBe(200);
    expect((await early.next((e) => e.event === 'connected')).data).toEqual({
      available_langs: ['es', 'fr'],
      tts_languages: [],
      phase: 'standby',
      recognition_mode: 'single',
      message: expect.any(String),
    });
    expect((await early.next((e) => e.event === 'standby' && e.data.message === 'Soon')).data.translations).toMatchObject({
      es: expect.any(String),
    });
    const spanish = await openViewer(t, b.token, '?lang=es&tts=false', { 'accept-language': 'zh-TW' });
    await spanish.next((e) => e.event === 'standby');
    const chinese = await openViewer(t, b.token, '', { 'accept-language': 'zh-TW,zh;q=0.9' });
    await chinese.next((e) => e.event === 'standby');
    await streamPcm(host, pcm.subarray(0, 32_000 * 2), 4);
    host.send(vt('broadcast_go_live'));
    await event(host, 'phase_changed');
    expect((await early.next((e) => e.event === 'phase_changed')).data).toMatchObject({ phase: 'live', message: expect.any(String) });
    await early.next((e) => e.event === 'recording_started');
    // Display strings: the caption language decides (es: English here), else Accept-Language.
    expect((await spanish.next((e) => e.event === 'phase_changed')).data.message).toMatch(/live/);
    expect((await chinese.next((e) => e.event === 'phase_changed')).data.message).toMatch(/直播/);
    await streamPcm(host, pcm.subarray(32_000 * 2), 4);
    await early.next((e) => e.event === 'translation' && e.data.language === 'fr' && e.data.is_final, 30_000);
    await waitFor(host, () => early.events.filter((e) => e.event === 'translation' && e.data.language === 'es').length >= 1, 10_000);

    // Captions: origin with start_time from go-live; the lang=es viewer gets no French.
    const origin = early.events.find((e) => e.event === 'origin')!;
    expect(origin.data).toMatchObject({
      sid: expect.any(Number),
      text: expect.any(String),
      start_time: expect.stringMatching(/^\d\d:\d\d$/),
    });
    expect(early.events.some((e) => e.event === 'translation' && e.data.language === 'es')).toBe(true);
    await waitFor(host, () => spanish.events.some((e) => e.event === 'translation'), 10_000);
    expect(spanish.events.filter((e) => e.event === 'translation').every((e) => e.data.language === 'es')).toBe(true);
    expect(spanish.events.some((e) => e.event === 'origin')).toBe(true);

    // A late joiner: connected (live), then only final sentences from the replay, no interims.
    // Once the host's sentences are done (no new event for 1.5 s), so what follows `connected` is the replay.
    for (let n = -1; n !== early.events.length; ) {
      n = early.events.length;
      await new Promise((r) => setTimeout(r, 1500));
    }
    const late = await openViewer(t, b.token);
    expect((await late.next((e) => e.event === 'connected')).data.phase).toBe('live');
    await late.next((e) => e.event === 'origin');
    const replay = late.events.slice(1).filter((e) => e.event === 'origin' || e.event === 'translation');
    expect(replay.length).toBeGreaterThan(0);
    expect(replay.every((e) => e.data.is_final === true)).toBe(true);
    const finalsSeen = early.events.filter((e) => e.event === 'origin' && e.data.is_final).map((e) => e.data.sid);
    expect(finalsSeen).toEqual(expect.arrayContaining([replay[0]!.data.sid]));

    host.send(vt('pause'));
    await early.next((e) => e.event === 'paused');
    host.send(vt('resume'));
    await early.next((e) => e.event === 'resumed');
    host.send(vt('stop'));
    // The recognizer's last sentences come out first (a loaded machine takes a while).
    expect((await early.next((e) => e.event === 'ended', 90_000)).data.message).toEqual(expect.any(String));
    await early.ended;
    await late.next((e) => e.event === 'ended', 10_000);
    expect(names(early).indexOf('connected')).toBe(0);
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    const after = await openViewer(t, b.token);
    expectError(after, 410, 'broadcast_session_ended');
    for (const v of [spanish, late, chinese]) v.close();
    host.ws.close();
  }, 180_000);

  it('connection errors: 404 unknown token or not on air yet, 401 revoked, 401 without a valid viewer token on a password channel, 422 bad lang or tts', async () => {
    // Through the typed client: refusals are ParleyErrors, events are read by name.
    const parley = nodeClient({ baseUrl: t.url, apiKey: key });
    const refused = (opening: Promise<unknown>) =>
      opening.then(
        () => {
          throw new Error('the stream opened');
        },
        (err: unknown) => err as ParleyError,
      );
    const unknown = await refused(parley.viewer.stream('zz00'));
    expect(unknown).toBeInstanceOf(ParleyError);
    expect(unknown).toMatchObject({ code: 'broadcast_session_not_found', status: 404, details: { reason: 'unknown_token' } });
    // Connection-stage errors carry the request id.
    expect(unknown.requestId).toEqual(expect.any(String));
    expect(await refused(parley.viewer.stream('NOPE'))).toMatchObject({ code: 'broadcast_session_not_found', status: 404 });
    const locked = await parley.broadcasts.create({
      transcription_languages: ['en-US'],
      access_type: 'password',
      pass_code: 'letmein',
      translation_languages: ['es'],
    });
    // Not on air yet: the same code, told apart by details.reason (even with a valid viewer token).
    const early = await parley.viewer.verify(locked.token, 'letmein');
    expect(await refused(parley.viewer.stream(locked.token, { viewer_access_token: early.viewer_access_token! }))).toMatchObject({
      code: 'broadcast_session_not_found',
      status: 404,
      details: { reason: 'not_started', status: 'pending' },
    });
    await onAir(t, locked.id);
    const noToken = await refused(parley.viewer.stream(locked.token));
    expect(noToken).toMatchObject({ code: 'broadcast_password_incorrect', status: 401, details: { field: 'viewer_access_token' } });
    const forged = await refused(parley.viewer.stream(locked.token, { viewer_access_token: 'forged' }));
    expect(forged).toMatchObject({ code: 'broadcast_password_incorrect', status: 401 });
    const { viewer_access_token } = await parley.viewer.verify(locked.token, 'letmein');
    const ok = reader(await parley.viewer.stream(locked.token, { viewer_access_token: viewer_access_token! }));
    await ok.next('connected');
    const badLang = await refused(parley.viewer.stream(locked.token, { viewer_access_token: viewer_access_token!, lang: 'de' }));
    expect(badLang).toMatchObject({ code: 'validation_failed', status: 422, details: { field: 'lang' } });
    // tts is typed boolean; a raw value other than true/false is what a hand-written URL sends.
    const badTts = await refused(parley.viewer.stream(locked.token, { viewer_access_token: viewer_access_token!, tts: 'yes' as never }));
    expect(badTts).toMatchObject({ code: 'validation_failed', status: 422, details: { field: 'tts' } });
    // A new pass code kicks viewers whose token it no longer accepts; a fresh token gets in again.
    const kicked = reader(await parley.viewer.stream(locked.token, { viewer_access_token: viewer_access_token! }));
    await kicked.next('connected');
    await parley.broadcasts.update(locked.id, { pass_code: 'newpass' });
    expect(await kicked.next('kicked')).toEqual({ message: expect.any(String) });
    await kicked.end();
    await ok.next('kicked');
    const fresh = await parley.viewer.verify(locked.token, 'newpass');
    const back = reader(await parley.viewer.stream(locked.token, { viewer_access_token: fresh.viewer_access_token! }));
    await back.next('connected');
    // Revoked while watching: an error event, then the stream ends; a new connection is refused.
    await parley.broadcasts.revoke(locked.id);
    expect(await back.next('error')).toMatchObject({
      error_code: 'broadcast_token_revoked',
      severity: expect.stringMatching(/^(warning|error|fatal)$/),
      message: expect.any(String),
      context: expect.any(String),
      timestamp: expect.any(String),
    });
    await back.end();
    expect(await refused(parley.viewer.stream(locked.token))).toMatchObject({ code: 'broadcast_token_revoked', status: 401 });
  }, 60_000);

  it('over max_viewers: queued with position and estimated wait, admitted when a seat frees; a full queue is 503 broadcast_capacity_exceeded', async () => {
    const b = await newBroadcast(t, key, { max_viewers: 1 });
    await onAir(t, b.id);
    const first = await openViewer(t, b.token);
    await first.next((e) => e.event === 'connected');
    const second = await openViewer(t, b.token);
    expect((await second.next((e) => e.event === 'queued')).data).toEqual({ position: 1, estimated_wait: expect.any(String) });
    const third = await openViewer(t, b.token);
    expect((await third.next((e) => e.event === 'queued')).data.position).toBe(2);
    first.close();
    await second.next((e) => e.event === 'admitted', 10_000);
    expect((await third.next((e) => e.event === 'queued' && e.data.position === 1, 10_000)).data.position).toBe(1);
    const owner = (await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data;
    expect(owner).toMatchObject({ total_viewers: 2, peak_viewers: 1 });
    // The queue holds at most max(100, max_viewers) viewers.
    const waiting: ViewerClient[] = [];
    for (let i = 0; i < 99; i++) waiting.push(await openViewer(t, b.token, '', { 'x-forwarded-for': `10.77.${i}.1` }));
    const full = await openViewer(t, b.token, '', { 'x-forwarded-for': '10.78.0.1' });
    expectError(full, 503, 'broadcast_capacity_exceeded');
    for (const v of waiting) v.close();
    await until(
      () => api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key }).then((r) => r.body.data.queue_count === 1),
      10_000,
      'one viewer queued',
      100,
    );
    // The host raises max_viewers: viewers are told, the waiting one is admitted.
    expect((await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { max_viewers: 3 } })).status).toBe(200);
    expect((await third.next((e) => e.event === 'max_viewers_changed')).data).toEqual({ max_viewers: 3 });
    await third.next((e) => e.event === 'admitted', 10_000);
    expect((await second.next((e) => e.event === 'max_viewers_changed')).data).toEqual({ max_viewers: 3 });
    const counted = (await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data;
    expect(counted).toMatchObject({ viewer_count: 2, queue_count: 0, max_viewers: 3, total_viewers: 3, peak_viewers: 2 });
    for (const v of [second, third]) v.close();
  }, 90_000);

  it('max_viewers 1 on air with a real host: one viewer gets captions, the next waits queued at position 1 without them; when the first leaves it is admitted and captions reach it', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'], max_viewers: 1 });
    const host = await hostSocket();
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await host.next(answer, 20_000)).data).toMatchObject({ action: 'session_started', viewer_count: 0, queue_count: 0 });
    const first = await openViewer(t, b.token);
    expect((await first.next((e) => e.event === 'connected')).data.phase).toBe('live');
    const second = await openViewer(t, b.token);
    expect((await second.next((e) => e.event === 'connected')).data.phase).toBe('live');
    expect((await second.next((e) => e.event === 'queued')).data).toEqual({ position: 1, estimated_wait: expect.any(String) });
    await until(
      () => api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key }).then((r) => r.body.data.queue_count === 1),
      10_000,
      'one viewer queued',
      100,
    );
    const spoken = (e: { event: string }) => e.event === 'origin' || e.event === 'translation';

    await streamPcm(host, pcm, 4);
    await first.next((e) => e.event === 'translation' && e.data.is_final, 60_000);
    expect(second.events.filter(spoken)).toEqual([]);
    expect(second.events.map((e) => e.event)).not.toContain('admitted');

    // The first viewer leaves: its seat goes to the one waiting (checked every 2 s), who reads captions from then on.
    first.close();
    expect((await second.next((e) => e.event === 'admitted', 10_000)).data).toEqual({ message: expect.any(String) });
    // The host's earlier audio may still be recognized after admission (a slow machine): what counts is
    // that nothing spoken reached the viewer before it was admitted.
    const admittedAt = second.events.findIndex((e) => e.event === 'admitted');
    expect(second.events.slice(0, admittedAt).filter(spoken)).toEqual([]);
    await streamPcm(host, pcm, 4);
    const caption = await second.next((e) => e.event === 'origin' && e.data.is_final && e.data.text !== '', 60_000);
    expect(caption.data.text.toLowerCase()).toMatch(/country|fellow|americans/);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`, { key })).body.data).toMatchObject({
      viewer_count: 1,
      queue_count: 0,
      total_viewers: 2,
      peak_viewers: 1,
    });
    host.send(vt('stop'));
    await second.next((e) => e.event === 'ended', 90_000);
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    host.ws.close();
  }, 240_000);
});
