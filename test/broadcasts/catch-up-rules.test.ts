/**
 * Catch-up for late joiners, rule by rule, with a real host (PocketSphinx, Apertium, the
 * extractive summarizer) on a short recording and real HTTP viewers: the host's switch
 * (creation, PATCH, a refused non-boolean), no summary in standby nor before the first run, a
 * pause writes one at once (the interval here is an hour), Last-Event-ID, a queued viewer gets it
 * when admitted, a host drop writes one covering what was said since, and the viewer channel of
 * the AsyncAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { longRecording, PCM_BYTES_PER_SECOND } from '../support/long-recording.js';
import { expectError, newBroadcast, openViewer, realKey, type ViewerClient } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (mmss: string) => {
  const [m, s] = mmss.split(':').map(Number);
  return (m ?? 0) * 60 + (s ?? 0);
};
/** A viewer process keeps a summary it read this long (reader.ts): a join after it sees a new one. */
const READER_CACHE_MS = 5_000;

describe.skipIf(!haveSharedAudio())('catch-up rules (sqlite, real host)', () => {
  let t: TestApp;
  let key: string;
  const audio = longRecording(90);
  const viewers: ViewerClient[] = [];

  beforeAll(async () => {
    // An interval of an hour: only pauses and host drops write a summary in these tests.
    t = await startLiveApp('sqlite', {
      env: {
        PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS: '3600',
        PARLEY_BROADCAST_HOST_LEASE_SECONDS: '600',
        PARLEY_BROADCAST_HOST_WAIT_SECONDS: '600',
        // The dropped host's recording is finalized soon after the drop (the suite waits for it before closing).
        PARLEY_WS_DISCONNECT_GRACE_SECONDS: '2',
      },
    });
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 500, pool: 'account' });
  });
  afterAll(async () => {
    for (const v of viewers) v.close();
    await t?.close();
  });

  async function watch(token: string, query = '', headers: Record<string, string> = {}) {
    const v = await openViewer(t, token, query, headers);
    viewers.push(v);
    return v;
  }
  async function hostOf(token: string, phase: 'live' | 'standby' = 'live'): Promise<Client> {
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    const cl = await connect(t, [`ticket.${r.body.data.ticket}`]);
    cl.send(vt('start', { type: 'broadcast', broadcast_token: token, audio_format: 'pcm', broadcast_phase: phase }));
    const m = await cl.next((x: Msg) => x.data?.action === 'session_started' || x.type === 'error', 30_000);
    if (m.type === 'error') throw new Error(`host start refused: ${JSON.stringify(m.data)}`);
    return cl;
  }
  const finals = (cl: Client) => cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin?.is_final && m.data.origin.text);
  /** Streams `[from, to)` seconds of the recording at 4x, then waits for the sentences in it to be heard. */
  async function speak(cl: Client, from: number, to: number): Promise<void> {
    const before = finals(cl).length;
    await streamPcm(cl, audio.subarray(from * PCM_BYTES_PER_SECOND, to * PCM_BYTES_PER_SECOND), 4);
    for (const end = Date.now() + 120_000; finals(cl).length < before + 2 && Date.now() < end; ) await sleep(500);
    expect(finals(cl).length).toBeGreaterThanOrEqual(before + 2);
    // The last sentences of the stretch (the recognizer's backlog) are out.
    await sleep(3_000);
  }
  /** A viewer's events up to its first caption (what it got before any caption). */
  async function beforeCaptions(v: ViewerClient): Promise<string[]> {
    await v.next((e) => e.event === 'origin', 20_000);
    return v.events
      .slice(
        0,
        v.events.findIndex((e) => e.event === 'origin'),
      )
      .map((e) => e.event);
  }

  it('the host switch: catch_up on by default, false at creation or by PATCH, anything else refused', async () => {
    const on = await newBroadcast(t, key);
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${on.id}`, { key })).body.data.catch_up).toBe(true);
    const off = await newBroadcast(t, key, { catch_up: false });
    expect((await api(t.url, 'GET', `/api/v1/broadcasts/${off.id}`, { key })).body.data.catch_up).toBe(false);
    for (const bad of ['yes', 1, null, 'false']) {
      expectError(
        await api(t.url, 'POST', '/api/v1/broadcasts', { key, body: { transcription_languages: ['en'], catch_up: bad } }),
        422,
        'validation_failed',
        'catch_up',
      );
      expectError(
        await api(t.url, 'PATCH', `/api/v1/broadcasts/${on.id}`, { key, body: { catch_up: bad } }),
        422,
        'validation_failed',
        'catch_up',
      );
    }
    const patched = await api(t.url, 'PATCH', `/api/v1/broadcasts/${on.id}`, { key, body: { catch_up: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.catch_up).toBe(false);
  });

  it('standby has none; a pause writes one at once; Last-Event-ID; the host switch; a queued viewer; a host drop', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const cl = await hostOf(b.token, 'standby');
    // Standby: what the host says there never reaches viewers, nor any summary.
    await speak(cl, 0, 20);
    const early = await watch(b.token, '?lang=es');
    await early.next((e) => e.event === 'standby');
    cl.send(vt('broadcast_go_live'));
    await early.next((e) => e.event === 'phase_changed');

    // Live, before any run (the interval is an hour): a joiner gets the captions only.
    await speak(cl, 20, 45);
    const first = await watch(b.token, '?lang=es');
    expect(await beforeCaptions(first)).toEqual(['connected']);
    first.close();

    // A pause writes one at once: everything said live, none of the standby.
    cl.send(vt('pause'));
    await early.next((e) => e.event === 'paused');
    await sleep(READER_CACHE_MS + 3_000);
    const spanish = await watch(b.token, '?lang=es');
    expect(await beforeCaptions(spanish)).toEqual(['connected', 'catch_up']);
    const summary = spanish.events[1]!.data;
    expect(summary.language).toBe('es');
    const heard = early.events.filter((e) => e.event === 'origin' && e.data.is_final && e.data.text);
    expect(summary.covers_from).toBe(heard[0]!.data.start_time);
    expect(summary.covers_to).toBe(heard.at(-1)!.data.start_time);
    expect(early.events.some((e) => e.event === 'catch_up')).toBe(false); // watchers are not sent it: they saw it happen
    const original = await watch(b.token);
    expect((await original.next((e) => e.event === 'catch_up')).data).toMatchObject({
      language: 'en',
      covers_from: summary.covers_from,
      covers_to: summary.covers_to,
    });

    // Last-Event-ID: an EventSource reconnecting with this summary's id is not sent it again; an older id gets it.
    const id = await sseIdOf(t, b.token);
    expect(id).toMatch(/^catch_up:\d+$/);
    const again = await watch(b.token, '?lang=es', { 'last-event-id': id });
    expect(await beforeCaptions(again)).toEqual(['connected']);
    const older = await watch(b.token, '?lang=es', { 'last-event-id': 'catch_up:0' });
    expect(await beforeCaptions(older)).toEqual(['connected', 'catch_up']);

    // A queued viewer gets it once admitted, right after `admitted` (two seats: `early` holds one).
    for (const v of [spanish, original, again, older]) v.close();
    expect((await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { max_viewers: 2 } })).status).toBe(200);
    await sleep(1_500);
    const seated = [await watch(b.token)];
    await seated[0]!.next((e) => e.event === 'connected');
    expect(seated[0]!.events.some((e) => e.event === 'queued')).toBe(false);
    const queued = await watch(b.token, '?lang=es');
    await queued.next((e) => e.event === 'queued');
    expect(queued.events.some((e) => e.event === 'catch_up')).toBe(false);
    seated[0]!.close();
    await queued.next((e) => e.event === 'admitted', 15_000);
    const admittedAt = queued.events.findIndex((e) => e.event === 'admitted');
    expect(queued.events[admittedAt + 1]).toMatchObject({ event: 'catch_up', data: { language: 'es', covers_to: summary.covers_to } });
    for (const v of [...seated, queued]) v.close();
    expect((await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { max_viewers: 100 } })).status).toBe(200);
    await sleep(1_500);

    // The host turns it off: joiners get none, and the stored one is gone.
    expect((await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { catch_up: false } })).body.data.catch_up).toBe(false);
    await sleep(READER_CACHE_MS + 500);
    const none = await watch(b.token, '?lang=es');
    expect(await beforeCaptions(none)).toEqual(['connected']);
    none.close();

    // On again, more is said, and the host drops: the summary written then covers it.
    expect((await api(t.url, 'PATCH', `/api/v1/broadcasts/${b.id}`, { key, body: { catch_up: true } })).status).toBe(200);
    cl.send(vt('resume'));
    await early.next((e) => e.event === 'resumed');
    await speak(cl, 45, 75);
    cl.ws.close();
    await early.next((e) => e.event === 'host_disconnected', 15_000);
    // What viewers heard up to the drop (nothing reaches them while the broadcast waits for its host).
    const lastHeard = early.events.filter((e) => e.event === 'origin' && e.data.is_final && e.data.text).at(-1)!.data.start_time;
    await sleep(READER_CACHE_MS + 3_000);
    const afterDrop = await watch(b.token, '?lang=es');
    await afterDrop.next((e) => e.event === 'catch_up', 15_000);
    expect(afterDrop.events.map((e) => e.event).slice(0, 2)).toEqual(['connected', 'catch_up']);
    const latest = afterDrop.events[1]!.data;
    expect(seconds(latest.covers_to)).toBeGreaterThan(seconds(summary.covers_to));
    expect(latest.covers_to).toBe(lastHeard);
    expect(latest.covers_from).toBe(summary.covers_from);
    // The dropped host's recording is finalized (the app closes after it).
    const taskId = cl.messages.find((m) => m.data?.action === 'session_started')!.data.task_id;
    for (
      let status = 'recording', end = Date.now() + 180_000;
      ['recording', 'uploading', 'processing'].includes(status);
      await sleep(1_000)
    ) {
      if (Date.now() > end) throw new Error(`the dropped host's recording is still ${status}`);
      status = (await api(t.url, 'GET', `/api/v1/tasks/${taskId}`, { key })).body.data.processing_status;
      expect(typeof status).toBe('string');
    }
  }, 600_000);

  it('the AsyncAPI document has the viewer stream with catch_up', async () => {
    const doc = (await api(t.url, 'GET', '/asyncapi.json')).body;
    expect(doc.channels.viewer.address).toBe('/broadcast/{token}/text');
    const m = doc.channels.viewer.messages['viewer.catch_up'];
    expect(m.summary).toMatch(/Last-Event-ID/);
    expect(Object.keys(m.payload.properties.data.properties).sort()).toEqual([
      'covers_from',
      'covers_to',
      'generated_at',
      'language',
      'text',
    ]);
    expect(doc.operations.viewer_on_catch_up).toMatchObject({ action: 'send', channel: { $ref: '#/channels/viewer' } });
    expect(doc.servers.viewers.pathname).toBe('/broadcast/{token}/text');
  });
});

/** The `id:` line of a viewer's catch_up frame, read from the raw stream. */
async function sseIdOf(t: TestApp, token: string): Promise<string> {
  const ctl = new AbortController();
  const res = await fetch(`${t.url}/broadcast/${token}/text?lang=es`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  let text = '';
  try {
    for (const end = Date.now() + 15_000; Date.now() < end; ) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const frame = text.split('\n\n').find((f) => f.includes('event: catch_up'));
      if (frame) return /^id: (.*)$/m.exec(frame)?.[1] ?? '';
    }
    throw new Error(`no catch_up frame in ${text.slice(0, 500)}`);
  } finally {
    ctl.abort();
  }
}
