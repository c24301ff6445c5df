/**
 * Catch-up for late joiners, on a 20-minute broadcast with a real recognizer: a host streams
 * jfk.flac and the LibriVox clips looped to 20 minutes (WebM/Opus, as a browser sends it, 40
 * times faster than real time: the broadcast's timeline is the audio's, so minute 15 is 15
 * minutes of speech in), PocketSphinx recognizes it live, Apertium translates. A viewer who
 * joins at minute 15 gets `connected`, then `catch_up` (a summary of minutes 0 to 15, in its
 * language, written by the summarizer the engine layer picks, here the extractive one), and
 * only then captions: the latest finals, then live ones past minute 15.
 *
 * On PostgreSQL + Redis the host streams to one instance and the viewers join on another
 * whose engine registry is empty: the summary they get is the one the hosting instance stored,
 * never computed where the viewer is.
 *
 * The recognizer cannot keep up with 40x on this machine: its backlog limit
 * (PARLEY_STT_MAX_BACKLOG_MS, 5 s here) drops what it cannot hear in time (stt_audio_dropped to
 * the host), so the recognized sentences are spread over the whole 20 minutes, as an
 * overloaded server's would be. The summary's interval is 3 s (PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detect } from 'tinyld';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineRegistry } from '../../src/engines/registry.js';
import { connect, type Msg, startLiveApp, vt } from '../realtime/support.js';
import { api, backends, createPgSchema, dropPgSchema, type TestApp } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { longRecordingWebm } from '../support/long-recording.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';
import { newBroadcast, openViewer, realKey, type SseEvent } from './support.js';

const MINUTES = 20;
const JOIN_AT_MINUTE = 15;
// Faster than the recognizer either way: 40x sends the 20 minutes in 30 s (20x took twice as long for
// the same assertions: fewer sentences are heard, each of them whole).
const SPEED = 40;
const ENV = {
  PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS: '3',
  // Few sentences are heard at 40x: every new one counts.
  PARLEY_BROADCAST_CATCH_UP_MIN_NEW_CHARS: '1',
  PARLEY_STT_MAX_BACKLOG_MS: '5000',
  PARLEY_POCKETSPHINX_REFRESH_MS: '0',
  // Recognition at 40x starves this process's timers on a loaded machine: the host's lease must not lapse meanwhile.
  PARLEY_BROADCAST_HOST_LEASE_SECONDS: '600',
};

/** mm:ss -> seconds. */
const seconds = (mmss: string) => {
  const [m, s] = mmss.split(':').map(Number);
  return (m ?? 0) * 60 + (s ?? 0);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends `webm[from, to)` as binary frames, `speed` times faster than the audio it holds
 * (CBR Opus: bytes are proportional to time), one frame every 100 ms.
 */
async function feed(ws: { send(b: Buffer): void }, webm: Buffer, from: number, to: number, bytesPerSecond: number) {
  const perFrame = Math.round((bytesPerSecond * SPEED) / 10);
  for (let i = from; i < to; i += perFrame) {
    ws.send(webm.subarray(i, Math.min(to, i + perFrame)));
    await sleep(100);
  }
}

/** Waits until the host got no result for 5 s (the recognizer heard out its backlog), at most 2 minutes. */
async function idle(host: { messages: Msg[] }): Promise<void> {
  const results = () => host.messages.filter((m) => m.data?.action === 'result').length;
  for (let n = -1, end = Date.now() + 120_000; n !== results() && Date.now() < end; ) {
    n = results();
    await sleep(5_000);
  }
}

const finals = (host: { messages: Msg[] }) =>
  host.messages.filter((m) => m.data?.action === 'result' && m.data.origin?.is_final && m.data.origin.text).map((m) => m.data.origin);

const shared = haveSharedAudio();
const redisUrl = testRedisUrl();

describe.skipIf(!shared).each(backends())('catch-up for late joiners: a 20-minute broadcast (%s)', (backend) => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  /** The host's instance and the viewers' (the same one on SQLite; two sharing PostgreSQL and Redis otherwise). */
  async function instances(): Promise<{ hostApp: TestApp; viewerApp: TestApp }> {
    if (backend === 'sqlite') {
      const t = await startLiveApp('sqlite', { env: ENV });
      cleanup.push(() => t.close());
      return { hostApp: t, viewerApp: t };
    }
    if (!redisUrl) throw new Error('the PostgreSQL run of this suite needs REDIS_URL');
    const pgSchema = await createPgSchema();
    cleanup.push(() => dropPgSchema(pgSchema));
    const dirs = [mkdtempSync(join(tmpdir(), 'parley-cua-')), mkdtempSync(join(tmpdir(), 'parley-cub-'))];
    cleanup.push(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const env = { ...ENV, REDIS_URL: redisUrl };
    // The viewers' instance has no engine at all: it cannot summarize, only read what the host's stored.
    const viewerApp = await startLiveApp('postgres', {
      engines: EngineRegistry.fromEngines([]),
      env: { ...env, PARLEY_ROLES: 'api,worker' },
      reuse: { dataDir: dirs[0]!, pgSchema },
    });
    cleanup.push(() => viewerApp.close());
    const hostApp = await startLiveApp('postgres', {
      env: { ...env, PARLEY_ROLES: 'api,realtime' },
      reuse: { dataDir: dirs[1]!, pgSchema },
    });
    cleanup.push(() => hostApp.close());
    return { hostApp, viewerApp };
  }

  it('a viewer joining at minute 15 gets a summary of minutes 0-15 in its language first, then live captions', async () => {
    const { hostApp, viewerApp } = await instances();
    const k = await realKey(viewerApp);
    await viewerApp.app.deps.billing.grantCredit({ accountId: k.accountId, points: 1000, pool: 'account' });
    const channel = await newBroadcast(viewerApp, k.key, { transcription_languages: ['en'], translation_languages: ['es', 'fr'] });
    const ticket = await api(hostApp.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    const host = await connect(hostApp, [`ticket.${ticket.body.data.ticket}`]);
    cleanup.push(() => host.ws.close());
    host.send(vt('start', { type: 'broadcast', broadcast_token: channel.token, audio_format: 'webm' }));
    expect((await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 30_000)).data.action).toBe(
      'session_started',
    );

    // Minutes 0 to 14, the recognizer's backlog (at most 5 s of audio) heard out, then minute 14:
    // its first seconds are heard whatever the machine's load, so a sentence of the last minute before the join is too.
    const webm = longRecordingWebm(MINUTES * 60);
    const bytesPerSecond = webm.length / (MINUTES * 60);
    const at = (minute: number) => Math.round(bytesPerSecond * minute * 60);
    const started = Date.now();
    const phases: string[] = [];
    const lap = (what: string) => phases.push(`${what} ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await feed(host.ws, webm, 0, at(JOIN_AT_MINUTE - 1), bytesPerSecond);
    lap('0-14 fed');
    await idle(host);
    lap('heard');
    await feed(host.ws, webm, at(JOIN_AT_MINUTE - 1), at(JOIN_AT_MINUTE), bytesPerSecond);
    await until(
      () => seconds(finals(host).at(-1)?.start_time ?? '00:00') >= (JOIN_AT_MINUTE - 1) * 60,
      180_000,
      'the host past the join minute',
      250,
    );
    lap('minute 14 heard');
    // Two intervals: the run after the last final has written (extractive summary, Apertium translations).
    await sleep(8_000);
    const heard = finals(host);
    console.info(
      `${backend}: minutes 0-15 fed and heard in ${Date.now() - started} ms; ${heard.length} finals heard (${heard.map((o) => o.start_time).join(' ')}); ` +
        `${host.messages.filter((m) => m.data?.error_code === 'stt_audio_dropped').length} drop episodes`,
    );
    expect(heard.length).toBeGreaterThanOrEqual(3);

    // The late joiners: Spanish, and the spoken language (no lang).
    const spanish = await openViewer(viewerApp, channel.token, '?lang=es');
    const original = await openViewer(viewerApp, channel.token);
    cleanup.push(
      () => spanish.close(),
      () => original.close(),
    );
    const catchUp = (await spanish.next((e) => e.event === 'catch_up', 20_000)).data;
    const inEnglish = (await original.next((e) => e.event === 'catch_up', 20_000)).data;
    // Before any caption: connected, then catch_up, then the latest finals and live captions.
    for (const v of [spanish, original]) {
      expect(v.events.slice(0, 2).map((e) => e.event)).toEqual(['connected', 'catch_up']);
    }
    expect(catchUp).toEqual({
      text: expect.any(String),
      language: 'es',
      covers_from: expect.stringMatching(/^\d\d+:\d\d$/),
      covers_to: expect.stringMatching(/^\d\d+:\d\d$/),
      generated_at: expect.any(String),
    });
    // Minutes 0 to 15: from the first sentence heard to one heard in the last minute before the join.
    // (The host's start_time counts from its recording's start, the viewers' from going live: a second or so apart.)
    expect(Math.abs(seconds(catchUp.covers_from) - seconds(heard[0]!.start_time))).toBeLessThanOrEqual(5);
    expect(seconds(catchUp.covers_from)).toBeLessThanOrEqual(30);
    expect(seconds(catchUp.covers_to)).toBeGreaterThanOrEqual((JOIN_AT_MINUTE - 1) * 60);
    expect(seconds(catchUp.covers_to)).toBeLessThanOrEqual(JOIN_AT_MINUTE * 60);
    expect(Date.parse(catchUp.generated_at)).toBeLessThanOrEqual(Date.now());
    // The same summary in each language; the Spanish one is Spanish (Apertium), the other the spoken English.
    expect(inEnglish).toMatchObject({ language: 'en', covers_from: catchUp.covers_from, covers_to: catchUp.covers_to });
    expect(detect(inEnglish.text)).toBe('en');
    expect(detect(catchUp.text)).toBe('es');
    expect(catchUp.text).not.toBe(inEnglish.text);
    // Written from what was heard: each line of the summary is words of the recognized sentences.
    const heardWords = new Set(heard.flatMap((o) => o.text.toLowerCase().match(/[a-z']+/g) ?? []));
    const lines = inEnglish.text.split('\n').filter((l: string) => l.trim());
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const words = line.toLowerCase().match(/[a-z']+/g) ?? [];
      expect(words.filter((w: string) => heardWords.has(w)).length / Math.max(1, words.length), line).toBeGreaterThan(0.5);
    }

    // Minutes 15 to 20: live captions reach the late joiner after its summary.
    lap('joined');
    await feed(host.ws, webm, at(JOIN_AT_MINUTE), webm.length, bytesPerSecond);
    lap('15-20 fed');
    const live = await spanish.next(
      (e) => e.event === 'origin' && e.data.is_final && seconds(e.data.start_time) > JOIN_AT_MINUTE * 60,
      60_000,
    );
    const index = (e: SseEvent) => spanish.events.indexOf(e);
    expect(index(live)).toBeGreaterThan(1);
    expect(spanish.events.filter((e) => e.event === 'catch_up')).toHaveLength(1);

    lap('live caption');
    host.send(vt('stop'));
    await spanish.next((e) => e.event === 'ended', 120_000);
    lap('ended');
    await host.next((m) => m.data?.action === 'task_complete', 240_000);
    lap('recording finalized');
    console.info(`${backend}: ${phases.join(', ')}`);
  }, 900_000);
});
