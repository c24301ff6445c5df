/**
 * Caption sinks of a broadcast (docs/broadcasts.md, "Caption sinks"): the REST shape and its
 * refusals, then a live broadcast of jfk.flac whose final sentences reach a local YouTube
 * ingestion server (source text, region, line breaks) and a local Zoom caption server
 * (Spanish), each POST with its protocol's `seq` and (YouTube) caption times, in the order
 * spoken, a POST answered 500 retried with the same seq and body, a sink that always fails
 * given up and reported, and every status readable over REST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captionBody, captionUrl, wrapLines, youtubeTime } from '../../src/broadcasts/sinks/protocol.js';
import { parseSinks } from '../../src/broadcasts/sinks/rules.js';
import { SINK_BACKLOG, SinkRunner } from '../../src/broadcasts/sinks/runner.js';
import type { CaptionSink, SinkReport } from '../../src/broadcasts/sinks/store.js';
import { createLogger } from '../../src/platform/logging.js';
import { exponentialBackoff } from '../../src/platform/retry.js';
import { postWebhook } from '../../src/webhooks/sender.js';
import { connect, jfkPcm, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { type CaptionServer, startCaptionServer } from './caption-servers.js';
import { expectError, newBroadcast, realKey } from './support.js';

describe('caption sink protocols', () => {
  it('YouTube: UTC time with milliseconds per caption, optional region, <br> line breaks; Zoom: the text, \\n breaks, seq and lang in the URL', () => {
    const at = new Date('2026-11-24T05:06:07.089Z');
    expect(youtubeTime(at)).toBe('2026-11-24T05:06:07.089');
    expect(wrapLines('We choose to go to the moon in this decade', 16)).toEqual(['We choose to go', 'to the moon in', 'this decade']);
    expect(
      captionBody({ kind: 'youtube', region: 'reg1#cue1', lineLength: 16 }, [
        { text: 'We choose to go to the moon', at },
        { text: 'and do the other things', at: new Date(at.getTime() + 1500) },
      ]),
    ).toBe(
      '2026-11-24T05:06:07.089 region:reg1#cue1\nWe choose to go<br>to the moon\n2026-11-24T05:06:08.589 region:reg1#cue1\nand do the other<br>things\n',
    );
    expect(captionBody({ kind: 'youtube', region: null, lineLength: null }, [{ text: 'Hello  there', at }])).toBe(
      '2026-11-24T05:06:07.089\nHello there\n',
    );
    expect(captionBody({ kind: 'zoom', region: null, lineLength: 16 }, [{ text: 'We choose to go to the moon', at }])).toBe(
      'We choose to go\nto the moon',
    );
    // The platform's parameters are kept byte for byte (they are signed); seq and lang are set.
    expect(captionUrl('zoom', 'https://wmcc.zoom.us/closedcaption?id=1&ns=GZHkEA==&spparams=id%2Cns&signature=s&seq=9', 12, 'es')).toBe(
      'https://wmcc.zoom.us/closedcaption?id=1&ns=GZHkEA==&spparams=id%2Cns&signature=s&seq=12&lang=es',
    );
    const yt = new URL(captionUrl('youtube', 'http://upload.youtube.com/closedcaption?cid=abc', 3, 'en'));
    expect(Object.fromEntries(yt.searchParams)).toEqual({ cid: 'abc', seq: '3' });
  });

  it('private, loopback and link-local targets are refused unless the webhook URL policy allows them', () => {
    const ctx = { translationLanguages: ['es'], allowPrivate: false };
    for (const url of ['http://127.0.0.1:9/c', 'http://10.1.2.3/c', 'http://[::1]/c', 'http://169.254.169.254/c', 'http://localhost/c']) {
      expect(() => parseSinks({ caption_sinks: [{ type: 'zoom', url }] }, ctx), url).toThrowError(/public address/);
    }
    expect(parseSinks({ caption_sinks: [{ type: 'zoom', url: 'http://127.0.0.1:9/c' }] }, { ...ctx, allowPrivate: true })).toHaveLength(1);
    expect(
      parseSinks({ caption_sinks: [{ type: 'youtube', url: 'http://upload.youtube.com/closedcaption?cid=k' }] }, ctx)[0],
    ).toMatchObject({
      kind: 'youtube',
      language: null,
    });
  });
});

describe('caption sink delivery (one sink, a real local server)', () => {
  function runner(url: string, reports: SinkReport[], backoffBaseMs: number) {
    const sink: CaptionSink = {
      id: 's1',
      broadcastId: 'b1',
      kind: 'youtube',
      url,
      language: null,
      region: null,
      lineLength: null,
      state: 'idle',
      seqUsed: 0,
      lastSeq: null,
      captionsSent: 0,
      captionsDropped: 0,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      createdAt: '',
      updatedAt: '',
    };
    return new SinkRunner(sink, {
      post: (u, body) =>
        postWebhook({ url: u, body, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, timeoutMs: 5000, allowPrivate: true }),
      report: async (_id, r) => {
        reports.push(r);
      },
      attempts: 3,
      // The upper bound every time (no jitter): a wait that does not come from Retry-After is the full backoff.
      backoff: exponentialBackoff({ baseMs: backoffBaseMs, random: () => 1 }),
      sourceLanguage: 'en',
      now: () => new Date(),
      logger: createLogger('silent'),
    });
  }

  it('a burst: the oldest waiting captions past the backlog are dropped, the rest go in order, several per YouTube POST', async () => {
    const yt = await startCaptionServer('youtube');
    try {
      const reports: SinkReport[] = [];
      const r = runner(yt.url, reports, 10);
      const t0 = Date.parse('2026-11-24T06:00:00.000Z');
      for (let i = 1; i <= 60; i++) r.add({ text: `caption ${i}`, at: new Date(t0 + i * 100) });
      await r.idle();
      expect(yt.violations).toEqual([]);
      // The first went out at once; 59 waited, of which the oldest 9 were over the backlog of 50.
      expect(SINK_BACKLOG).toBe(50);
      const texts = yt.posts.flatMap((p) => p.captions.map((c) => c.text));
      expect(texts).toEqual(['caption 1', ...Array.from({ length: 50 }, (_, i) => `caption ${i + 11}`)]);
      expect(yt.posts.map((p) => [p.seq, p.captions.length])).toEqual([
        [1, 1],
        [2, 10],
        [3, 10],
        [4, 10],
        [5, 10],
        [6, 10],
      ]);
      expect(reports.filter((x) => x.outcome === 'dropped').reduce((n, x) => n + (x.outcome === 'dropped' ? x.captions : 0), 0)).toBe(9);
      expect(reports.filter((x) => x.outcome === 'sent').map((x) => (x.outcome === 'sent' ? x.seq : 0))).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await yt.close();
    }
  });

  it("a server's Retry-After is the wait before the retry (the backoff here would be a minute)", async () => {
    const yt = await startCaptionServer('youtube');
    try {
      yt.failNext.push({ status: 503, retryAfter: '1' });
      const reports: SinkReport[] = [];
      const r = runner(yt.url, reports, 60_000);
      r.add({ text: 'after a short wait', at: new Date() });
      await r.idle();
      expect(yt.posts.map((p) => [p.seq, p.status])).toEqual([
        [1, 503],
        [1, 200],
      ]);
      expect(reports.map((x) => x.outcome)).toEqual(['retrying', 'sent']);
    } finally {
      await yt.close();
    }
  }, 20_000);
});

describe('caption sinks of a live broadcast (sqlite, real engines)', () => {
  let t: TestApp;
  const servers: CaptionServer[] = [];
  beforeAll(async () => {
    // Short waits between attempts so the sink that always fails is given up quickly.
    t = await startLiveApp('sqlite', { env: { PARLEY_BROADCAST_SINK_ATTEMPTS: '3', PARLEY_BROADCAST_SINK_RETRY_BASE_MS: '100' } });
  });
  afterAll(async () => {
    await t?.close();
    for (const s of servers) await s.close();
  });

  async function server(kind: 'youtube' | 'zoom') {
    const s = await startCaptionServer(kind);
    servers.push(s);
    return s;
  }
  const put = (key: string, id: string, body: unknown) => api(t.url, 'PUT', `/api/v1/broadcasts/${id}/caption-sinks`, { key, body });
  const get = (key: string, id: string) => api(t.url, 'GET', `/api/v1/broadcasts/${id}/caption-sinks`, { key });

  it('the routes and their codes are in the OpenAPI document', async () => {
    const doc = (await api(t.url, 'GET', '/api/v1/openapi.json')).body;
    const path = doc.paths['/api/v1/broadcasts/{id}/caption-sinks'];
    expect(Object.keys(path).sort()).toEqual(['get', 'put']);
    expect(Object.keys(path.put.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '422']));
    expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
  });

  it('PUT sets the list, GET reads it with each status (the URL without its query); every refusal', async () => {
    const k = await realKey(t);
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es', 'fr'] });
    const yt = 'https://upload.example.com/closedcaption?cid=secret-key';
    const set = await put(k.key, b.id, {
      caption_sinks: [
        { type: 'youtube', url: yt, region: 'reg1#cue1', line_length: 32 },
        { type: 'zoom', url: 'https://wmcc.example.com/closedcaption?id=1&signature=secret', language: 'ES' },
      ],
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual([
      {
        id: expect.any(String),
        type: 'youtube',
        url: 'https://upload.example.com/closedcaption',
        language: null,
        region: 'reg1#cue1',
        line_length: 32,
        status: {
          state: 'idle',
          last_seq: null,
          last_success_at: null,
          last_error: null,
          last_error_at: null,
          captions_sent: 0,
          captions_dropped: 0,
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      expect.objectContaining({
        type: 'zoom',
        url: 'https://wmcc.example.com/closedcaption',
        language: 'es',
        region: null,
        line_length: null,
      }),
    ]);
    expect(JSON.stringify(set.body)).not.toContain('secret');
    expect((await get(k.key, b.id)).body.data).toEqual(set.body.data);
    // Listed again, a sink keeps its id (and so its sequence); a new one is added; a missing one removed.
    const again = await put(k.key, b.id, {
      caption_sinks: [
        { type: 'youtube', url: yt },
        { type: 'zoom', url: 'https://z.example.com/c?x=1' },
      ],
    });
    expect(again.body.data[0]).toMatchObject({ id: set.body.data[0].id, region: null, line_length: null });
    expect(again.body.data[1].id).not.toBe(set.body.data[1].id);

    const refused: [unknown, string][] = [
      [{}, 'caption_sinks'],
      [{ caption_sinks: 'x' }, 'caption_sinks'],
      [{ caption_sinks: [], extra: 1 }, 'extra'],
      [{ caption_sinks: Array.from({ length: 6 }, (_, i) => ({ type: 'zoom', url: `https://z.example.com/${i}` })) }, 'caption_sinks'],
      [{ caption_sinks: [{ type: 'twitch', url: yt }] }, 'caption_sinks[0].type'],
      [{ caption_sinks: [{ type: 'zoom' }] }, 'caption_sinks[0].url'],
      [{ caption_sinks: [{ type: 'zoom', url: 'ftp://z.example.com/c' }] }, 'caption_sinks[0].url'],
      [{ caption_sinks: [{ type: 'zoom', url: 'not a url' }] }, 'caption_sinks[0].url'],
      [{ caption_sinks: [{ type: 'zoom', url: yt, language: 'de' }] }, 'caption_sinks[0].language'],
      [{ caption_sinks: [{ type: 'zoom', url: yt, region: 'reg1' }] }, 'caption_sinks[0].region'],
      [{ caption_sinks: [{ type: 'youtube', url: yt, region: 'has space' }] }, 'caption_sinks[0].region'],
      [{ caption_sinks: [{ type: 'youtube', url: yt, line_length: 5 }] }, 'caption_sinks[0].line_length'],
      [{ caption_sinks: [{ type: 'youtube', url: yt, colour: 'red' }] }, 'caption_sinks[0].colour'],
      [
        {
          caption_sinks: [
            { type: 'zoom', url: yt },
            { type: 'zoom', url: yt },
          ],
        },
        'caption_sinks[1]',
      ],
    ];
    for (const [body, field] of refused) expectError(await put(k.key, b.id, body), 422, 'validation_failed', field);
    expect((await get(k.key, b.id)).body.data).toHaveLength(2);

    // Another account's broadcast, an unknown id, a malformed one: 404; no key: 401.
    const other = await realKey(t);
    expectError(await get(other.key, b.id), 404, 'broadcast_not_found');
    expectError(await put(other.key, b.id, { caption_sinks: [] }), 404, 'broadcast_not_found');
    expectError(await get(k.key, '00000000-0000-4000-8000-000000000000'), 404, 'broadcast_not_found');
    expectError(await get(k.key, 'nope'), 404, 'broadcast_not_found');
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}/caption-sinks`)).status).toBe(401);
    // Once revoked (or ended) they no longer change; they stay readable.
    await api(t.url, 'POST', `/api/v1/broadcasts/${b.id}/revoke`, { key: k.key });
    expectError(await put(k.key, b.id, { caption_sinks: [] }), 409, 'broadcast_not_editable');
    expect((await get(k.key, b.id)).body.data).toHaveLength(2);
  });

  it('finals reach YouTube and Zoom in order with their seq and times; a 500 is retried with the same seq; a dead sink is given up; status readable', async () => {
    const k = await realKey(t);
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 50, pool: 'account' });
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const yt = await server('youtube');
    const zoom = await server('zoom');
    const dead = await server('zoom');
    dead.failAll = 503;
    yt.failNext.push({ status: 500 });
    // Set before the start: YouTube alone.
    const first = await put(k.key, b.id, { caption_sinks: [{ type: 'youtube', url: yt.url, region: 'reg1#cue1', line_length: 20 }] });
    expect(first.status).toBe(200);

    const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key })).body.data.ticket as string;
    const host = await connect(t, [`ticket.${ticket}`]);
    const began = Date.now();
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    const started = await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 20_000);
    expect(started.data).toMatchObject({ action: 'session_started', phase: 'live' });
    const liveBy = Date.now(); // the broadcast went live before this
    // Changed while it runs: the hosting node reloads them (YouTube kept as it was, two Zoom sinks added).
    const changed = await put(k.key, b.id, {
      caption_sinks: [
        { type: 'youtube', url: yt.url, region: 'reg1#cue1', line_length: 20 },
        { type: 'zoom', url: zoom.url, language: 'es' },
        { type: 'zoom', url: dead.url },
      ],
    });
    expect(changed.body.data[0].id).toBe(first.body.data[0].id);
    await new Promise((r) => setTimeout(r, 300));

    const audio = jfkPcm();
    await streamPcm(host, audio, 4);
    host.send(vt('stop'));
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    host.ws.close();
    // A caption's time is the go-live time plus where its sentence starts in the audio, and the
    // audio went at 4x: so the last one may be later than now, never later than the audio's end.
    const audioEnds = Math.max(Date.now(), liveBy + audio.length / 32 + 1000);

    const finals = host.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final && m.data.origin.text.trim());
    const spanish = host.messages.filter((m) => m.data?.action === 'translation' && m.data.is_final && m.data.language === 'es');
    expect(finals.length).toBeGreaterThan(0);
    expect(spanish.length).toBeGreaterThan(0);

    // Every caption delivered or given up; the status says so.
    let sinks: { type: string; status: Record<string, unknown> }[] = [];
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      sinks = (await get(k.key, b.id)).body.data;
      const [a, z, d] = sinks.map((s) => s.status);
      if (a?.captions_sent === finals.length && z?.captions_sent === spanish.length && d?.state === 'failed') break;
    }
    expect(yt.violations).toEqual([]);
    expect(zoom.violations).toEqual([]);

    // YouTube: the first POST answered 500 and was retried with the same seq and body; then seq 1, 2, 3... one per POST.
    expect(yt.posts[0]!.status).toBe(500);
    expect(yt.posts[1]).toMatchObject({ seq: yt.posts[0]!.seq, body: yt.posts[0]!.body, status: 200 });
    const ytAccepted = yt.accepted();
    expect(ytAccepted.map((p) => p.seq)).toEqual(ytAccepted.map((_, i) => i + 1));
    const ytCaptions = ytAccepted.flatMap((p) => p.captions);
    const words = (s: string) => s.replace(/\s+/g, ' ').trim();
    expect(ytCaptions.map((c) => words(c.text.replaceAll('<br>', ' ')))).toEqual(finals.map((m) => words(m.data.origin.text)));
    for (const c of ytCaptions) {
      expect(c.region).toBe('reg1#cue1');
      for (const line of c.text.split('<br>')) expect(line.length <= 20 || !line.includes(' ')).toBe(true);
    }
    // Times: UTC, in the order spoken, within the broadcast.
    const times = ytCaptions.map((c) => Date.parse(`${c.time}Z`));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(times[0]).toBeGreaterThanOrEqual(began - 1000);
    expect(times.at(-1)).toBeLessThanOrEqual(audioEnds);

    // Zoom: the Spanish finals, one per POST, seq 1, 2, 3..., lang es, the text as the body.
    const zoomAccepted = zoom.accepted();
    expect(zoomAccepted.map((p) => p.seq)).toEqual(zoomAccepted.map((_, i) => i + 1));
    expect(zoomAccepted.every((p) => p.lang === 'es' && p.contentType.startsWith('text/plain'))).toBe(true);
    expect(zoomAccepted.map((p) => p.body)).toEqual(spanish.map((m) => words(m.data.text)));

    // The dead sink: each caption tried 3 times with one seq (source language, lang en), then given up.
    expect(dead.posts.length).toBeGreaterThanOrEqual(3);
    expect(dead.posts.slice(0, 3).map((p) => [p.seq, p.lang])).toEqual([
      [1, 'en'],
      [1, 'en'],
      [1, 'en'],
    ]);

    const [a, z, d] = sinks;
    expect(a!.status).toMatchObject({
      state: 'ok',
      last_seq: ytAccepted.length,
      last_error: 'HTTP 500',
      last_error_at: expect.any(String),
      last_success_at: expect.any(String),
      captions_sent: finals.length,
      captions_dropped: 0,
    });
    expect(z!.status).toMatchObject({ state: 'ok', last_seq: zoomAccepted.length, last_error: null, captions_sent: spanish.length });
    expect(d!.status).toMatchObject({ state: 'failed', last_seq: null, last_error: 'HTTP 503', captions_sent: 0 });
    expect(d!.status.captions_dropped).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
