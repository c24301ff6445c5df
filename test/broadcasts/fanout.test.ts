/**
 * The viewer fan-out of one process (src/broadcasts/fanout/), over real HTTP: captions reach
 * each caption group (lang, all) in publish order, and a viewer that stops reading is cut off
 * by its own backlog while the others get every caption.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_REPLAY_RETAIN, viewerTopic } from '../../src/broadcasts/viewer-events.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { newBroadcast, onAir, openViewer, type ViewerClient } from './support.js';

describe('broadcast viewer fan-out (sqlite)', () => {
  let t: TestApp;
  let b: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestApp({
      backend: 'sqlite',
      env: { PARLEY_BROADCAST_VIEWER_LIMIT: '50', PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100' },
    });
    const k = await t.app.deps.keys.createKey({ name: 'fanout' });
    b = await newBroadcast(t, k.api_key);
    await onAir(t, b.id, 'live');
  }, 60_000);
  afterAll(() => t?.close());

  const publish = (event: string, data: Record<string, unknown>, retain = true) =>
    t.app.deps.bus.publish(viewerTopic(b.id), { event, data }, { retain: retain ? VIEWER_REPLAY_RETAIN : undefined });
  const captions = (v: ViewerClient) => v.events.filter((e) => e.event === 'origin' || e.event === 'translation');

  it('each group gets its captions, in publish order, several in one tick included', async () => {
    const all = await openViewer(t, b.token);
    const es = await openViewer(t, b.token, '?lang=es');
    const fr = await openViewer(t, b.token, '?lang=fr');
    for (const v of [all, es, fr]) await v.next((e) => e.event === 'connected');
    // One tick: origin, es, fr of sentence 1 and 2 (the room batches them into one write per viewer).
    for (const sid of [1, 2]) {
      void publish('origin', { sid, text: `s${sid}`, speaker_label: null, start_time: '00:01', is_final: true });
      void publish('translation', { sid, language: 'es', text: `es${sid}`, speaker_id: null, speaker_label: null, is_final: true });
      void publish('translation', { sid, language: 'fr', text: `fr${sid}`, speaker_id: null, speaker_label: null, is_final: true });
    }
    await all.next((e) => e.event === 'translation' && e.data.text === 'fr2');
    await es.next((e) => e.event === 'translation' && e.data.text === 'es2');
    await fr.next((e) => e.event === 'translation' && e.data.text === 'fr2');
    const texts = (v: ViewerClient) => captions(v).map((e) => e.data.text);
    expect(texts(all)).toEqual(['s1', 'es1', 'fr1', 's2', 'es2', 'fr2']);
    expect(texts(es)).toEqual(['s1', 'es1', 's2', 'es2']);
    expect(texts(fr)).toEqual(['s1', 'fr1', 's2', 'fr2']);
    // A paused broadcast: a per-viewer event after the tick's captions, in each viewer's order.
    await publish('paused', {});
    const paused = await es.next((e) => e.event === 'paused');
    expect(paused.data.message).toMatch(/paused/);
    for (const v of [all, es, fr]) v.close();
  });

  it('audio goes to the listeners of its language only; a sentence error where its sentence goes', async () => {
    const esAudio = await openViewer(t, b.token, '?lang=es&tts=true');
    const allAudio = await openViewer(t, b.token, '?tts=true');
    const esQuiet = await openViewer(t, b.token, '?lang=es');
    for (const v of [esAudio, allAudio, esQuiet]) await v.next((e) => e.event === 'connected');
    for (const language of ['es', 'fr']) {
      void publish(
        'tts_ready',
        { sid: 9, language, transcript: 't', text: 't', audio: 'AAAA', format: 'mp3', duration_ms: 100, boundaries: [] },
        false,
      );
    }
    void publish(
      'error',
      {
        error_code: 'translation_failed',
        severity: 'warning',
        message: 'm',
        context: 'c',
        sid: 9,
        translation_language: 'fr',
        timestamp: '2026-11-27T00:00:00.000Z',
      },
      false,
    );
    void publish('translation', { sid: 9, language: 'es', text: 'es9', speaker_id: null, speaker_label: null, is_final: true });
    for (const v of [esAudio, allAudio, esQuiet]) await v.next((e) => e.event === 'translation' && e.data.text === 'es9');
    const audio = (v: ViewerClient) => v.events.filter((e) => e.event === 'tts_ready').map((e) => e.data.language);
    const errors = (v: ViewerClient) => v.events.filter((e) => e.event === 'error').map((e) => e.data.translation_language);
    expect(audio(esAudio)).toEqual(['es']);
    expect(audio(allAudio)).toEqual(['es', 'fr']);
    expect(audio(esQuiet)).toEqual([]);
    expect(errors(allAudio)).toEqual(['fr']);
    expect(errors(esAudio)).toEqual([]);
    for (const v of [esAudio, allAudio, esQuiet]) v.close();
  });

  it('a viewer that stops reading is cut by its own backlog; the others get every caption', async () => {
    await publish('resumed', {});
    const fast = await openViewer(t, b.token, '?lang=es');
    await fast.next((e) => e.event === 'connected');
    // The slow viewer: a raw socket that sends its request and never reads what comes.
    const slow = net.connect(Number(new URL(t.url).port), '127.0.0.1');
    slow.setNoDelay(true);
    await new Promise<void>((r) => slow.once('connect', () => r()));
    slow.write(`GET /broadcast/${b.token}/text?lang=es HTTP/1.1\r\nHost: x\r\n\r\n`);
    slow.pause();
    let slowClosed = false;
    slow.once('close', () => {
      slowClosed = true;
    });
    slow.on('error', () => {});
    await new Promise((r) => setTimeout(r, 300));
    // ~16 MB of captions: far past what the socket buffers and the 1 MB outbox limit hold. They
    // go out in batches of 50 (400 KB), each once the reading viewer has the last: it is never
    // behind by more than a batch, however slowly this (shared, loaded) process reads.
    const text = 'x'.repeat(8_000);
    const count = 2_000;
    for (let sid = 1; sid <= count; sid++) {
      await publish(
        'translation',
        { sid, language: 'es', text: `${sid} ${text}`, speaker_id: null, speaker_label: null, is_final: true },
        false,
      );
      if (sid % 50 === 0) await fast.next((e) => e.event === 'translation' && e.data.text.startsWith(`${sid} `), 60_000);
    }
    const sids = captions(fast)
      .filter((e) => e.event === 'translation' && e.data.text.endsWith(text)) // not the replay of the first test's
      .map((e) => e.data.sid as number);
    expect(sids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    // The server closed the slow viewer's connection: reading now drains what was sent and ends.
    slow.resume();
    slow.on('data', () => {});
    for (let i = 0; i < 100 && !slowClosed; i++) await new Promise((r) => setTimeout(r, 100));
    expect(slowClosed).toBe(true);
    fast.close();
  }, 120_000);
});
