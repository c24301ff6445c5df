/**
 * Spoken translations and interim translations for broadcast viewers, end to end: a real host
 * streams jfk.flac (PocketSphinx, Apertium) over WebSocket, 50 real SSE viewers listen
 * (tts=true), and eSpeak NG synthesizes. Each final sentence is synthesized once per language
 * (counted at the engine), whatever the number of viewers; only tts=true viewers get
 * tts_ready, in their language when they chose one, in the live phase only (standby and
 * paused: none); interim translations precede the final one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine, Synthesizer } from '../../src/engines/types.js';
import { connect, event, jfkPcm, liveEngines, type Msg, streamPcm, vt, waitFor } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { newBroadcast, openViewer, realKey, type SseEvent, type ViewerClient } from './support.js';

const pcm = jfkPcm();
const KINDS = ['streaming-stt', 'translator', 'summarizer'] as const;

describe('broadcast viewers: tts_ready shared by every viewer, interim translations (sqlite, real engines)', () => {
  let t: TestApp;
  let key: string;
  const syntheses: Array<{ language: string; text: string }> = [];
  beforeAll(async () => {
    const live = await liveEngines();
    const made = await espeakFactory.create({ config: { engines: { ffmpegPath: 'ffmpeg' } } } as never);
    if ('unavailable' in made) throw new Error(`eSpeak NG unavailable: ${made.unavailable}`);
    const espeak = made as Synthesizer;
    // Counts every synthesis at the engine (the real one runs).
    const real = espeak.synthesize.bind(espeak);
    espeak.synthesize = (text, options) => {
      syntheses.push({ language: options.language, text });
      return real(text, options);
    };
    t = await startTestApp({
      backend: 'sqlite',
      engines: EngineRegistry.fromEngines([...KINDS.flatMap((k) => live.enginesOf(k) as AnyEngine[]), espeak as AnyEngine]),
    });
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 100, pool: 'account' });
  }, 60_000);
  afterAll(() => t?.close());

  const answer = (m: Msg) => m.data?.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning');
  const of = (v: ViewerClient, name: string) => v.events.filter((e) => e.event === name);

  it('50 tts viewers: one synthesis per final sentence per language; tts_ready has every member; live phase only', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es', 'fr'] });
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    const host = await connect(t, [`ticket.${r.body.data.ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm', broadcast_phase: 'standby' }));
    expect((await host.next(answer, 20_000)).data.action).toBe('session_started');
    const listeners: ViewerClient[] = [];
    for (let i = 0; i < 48; i++) listeners.push(await openViewer(t, b.token, '?tts=true'));
    const spanish = await openViewer(t, b.token, '?tts=true&lang=es');
    const silent = await openViewer(t, b.token, '?tts=false');
    const plain = await openViewer(t, b.token);
    for (const v of [...listeners, spanish, silent, plain]) await v.next((e) => e.event === 'connected');
    // Standby: tts_languages is empty (not live yet), and nothing is synthesized.
    expect(listeners[0]!.events[0]!.data.tts_languages).toEqual([]);
    await streamPcm(host, pcm.subarray(0, 32_000 * 4), 4);
    await waitFor(host, (ms) => ms.some((m) => m.data?.action === 'translation'), 20_000);
    expect(syntheses).toEqual([]);

    host.send(vt('broadcast_go_live'));
    await event(host, 'phase_changed');
    // The public view and a new viewer now list the languages with a synthesizer.
    expect((await api(t.url, 'GET', `/api/v1/viewer/broadcasts/${b.token}`)).body.data.tts_languages).toEqual(['es', 'fr']);
    const late = await openViewer(t, b.token, '?tts=true');
    expect((await late.next((e) => e.event === 'connected')).data.tts_languages).toEqual(['es', 'fr']);
    listeners.push(late);

    await streamPcm(host, pcm.subarray(32_000 * 4), 4);
    const finals = (v: ViewerClient, lang: string) =>
      v.events
        .filter((e) => e.event === 'translation' && e.data.is_final && e.data.language === lang && e.data.text.trim())
        .map((e) => e.data.sid);
    await waitFor(host, () => finals(listeners[0]!, 'es').length > 0 && finals(listeners[0]!, 'fr').length > 0, 60_000);
    // Let the recognizer finish what it heard (no new viewer event for 2 s), then pause.
    for (let n = -1; n !== listeners[0]!.events.length; ) {
      n = listeners[0]!.events.length;
      await new Promise((r) => setTimeout(r, 2000));
    }
    host.send(vt('pause'));
    await spanish.next((e) => e.event === 'paused', 20_000);
    // Every final translation of the live phase is spoken: wait until each listener has them all.
    const esFinals = finals(listeners[0]!, 'es');
    const frFinals = finals(listeners[0]!, 'fr');
    expect(esFinals.length).toBeGreaterThan(0);
    const audioOf = (v: ViewerClient, lang: string) =>
      of(v, 'tts_ready')
        .filter((e) => e.data.language === lang)
        .map((e) => e.data.sid);
    for (const v of [...listeners, spanish]) {
      await waitFor(host, () => audioOf(v, 'es').length >= esFinals.length, 30_000);
    }
    for (const v of listeners) await waitFor(host, () => audioOf(v, 'fr').length >= frFinals.length, 30_000);

    // One synthesis per sentence per language, for 50 listeners.
    const count = (lang: string) => syntheses.filter((s) => s.language === lang).length;
    expect(count('es')).toBe(esFinals.length);
    expect(count('fr')).toBe(frFinals.length);
    for (const v of listeners) {
      expect(audioOf(v, 'es')).toEqual(esFinals);
      expect(audioOf(v, 'fr')).toEqual(frFinals);
    }
    // The lang filter holds for audio; tts=false (or absent) gets none.
    expect(audioOf(spanish, 'fr')).toEqual([]);
    expect(audioOf(spanish, 'es')).toEqual(esFinals);
    expect(of(silent, 'tts_ready')).toEqual([]);
    expect(of(plain, 'tts_ready')).toEqual([]);

    // Every member of the spec's tts_ready.
    const ready = of(spanish, 'tts_ready')[0] as SseEvent;
    const origin = spanish.events.find((e) => e.event === 'origin' && e.data.is_final && e.data.sid === ready.data.sid)!;
    const translation = spanish.events.find((e) => e.event === 'translation' && e.data.is_final && e.data.sid === ready.data.sid)!;
    expect(ready.data).toEqual({
      sid: translation.data.sid,
      language: 'es',
      transcript: origin.data.text,
      text: translation.data.text,
      audio: expect.any(String),
      format: 'mp3',
      duration_ms: expect.any(Number),
      boundaries: expect.any(Array),
    });
    const mp3 = Buffer.from(ready.data.audio, 'base64');
    expect(mp3.length).toBeGreaterThan(500);
    expect(mp3.subarray(0, 3).toString() === 'ID3' || (mp3[0] === 0xff && (mp3[1]! & 0xe0) === 0xe0)).toBe(true);
    expect(ready.data.duration_ms).toBeGreaterThan(100);
    expect(ready.data.boundaries[0]).toEqual({
      offset_ms: expect.any(Number),
      duration_ms: expect.any(Number),
      text: expect.any(String),
      text_offset: expect.any(Number),
      word_length: expect.any(Number),
    });
    // The audio follows its sentence's final translation.
    const idx = (e: SseEvent) => spanish.events.indexOf(e);
    expect(idx(ready)).toBeGreaterThan(idx(translation));

    // Paused: nothing more is synthesized or sent.
    const before = syntheses.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(syntheses.length).toBe(before);

    host.send(vt('stop'));
    await spanish.next((e) => e.event === 'ended', 30_000);
    for (const v of [...listeners, spanish, silent, plain]) v.close();
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    host.ws.close();
  }, 240_000);

  it('interim translations (is_final false) reach viewers before the final translation of their sentence', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key });
    const host = await connect(t, [`ticket.${r.body.data.ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await host.next(answer, 20_000)).data.action).toBe('session_started');
    const v = await openViewer(t, b.token, '?lang=es');
    await v.next((e) => e.event === 'connected');
    // Real time: sentences take seconds, long enough for interim translations.
    await streamPcm(host, pcm, 1);
    await v.next((e) => e.event === 'translation' && e.data.is_final, 30_000);
    host.send(vt('stop'));
    await v.next((e) => e.event === 'ended', 30_000);
    const translations = of(v, 'translation');
    const interims = translations.filter((e) => !e.data.is_final);
    expect(interims.length).toBeGreaterThan(0);
    for (const i of interims) {
      expect(i.data).toEqual({
        sid: expect.any(Number),
        language: 'es',
        text: expect.any(String),
        speaker_id: null,
        speaker_label: null,
        is_final: false,
      });
      const final = translations.find((e) => e.data.is_final && e.data.sid === i.data.sid);
      if (final) expect(v.events.indexOf(i)).toBeLessThan(v.events.indexOf(final));
    }
    // Origin interims too; late joiners would get neither (viewer-stream.test.ts).
    expect(of(v, 'origin').some((e) => !e.data.is_final)).toBe(true);
    await host.next((m) => m.data?.action === 'task_complete', 60_000);
    host.ws.close();
    v.close();
  }, 120_000);
});
