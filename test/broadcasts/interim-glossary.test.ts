/**
 * A broadcast's interim translations go through the recording's own translator with the
 * session glossary, as its finals do: a host sets a translation dictionary (`config`), goes
 * live and speaks jfk.flac (PocketSphinx, Apertium); a real SSE viewer (lang=es) gets an
 * interim translation (is_final false) carrying a glossary term, and the final translation of
 * the same sentence carries the same term. Before, interims used a second translate path
 * without the glossary, so an interim said "y" where its final said the glossary's term.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, event, jfkPcm, type Msg, startLiveApp, streamPcm, vt } from '../realtime/support.js';
import { api, type TestApp } from '../support/app.js';
import { newBroadcast, openViewer, realKey } from './support.js';

/** English words of jfk.flac and the made-up Spanish terms the glossary gives them (Apertium never says these). */
const TERMS: Record<string, string> = { and: 'Zandor', fellow: 'Zfellor', americans: 'Zamerior', country: 'Zcountor', ask: 'Zaskor' };

describe('broadcast interim translations use the session glossary (sqlite, real host)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startLiveApp('sqlite');
    const k = await realKey(t);
    key = k.key;
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 100, pool: 'account' });
  });
  afterAll(() => t?.close());

  it('an interim translation and its final carry the same glossary term', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const ticket = (await api(t.url, 'POST', '/api/v1/auth/ticket', { key })).body.data.ticket;
    const host = await connect(t, [`ticket.${ticket}`]);
    host.send(vt('config', { translation_dict: { es: Object.entries(TERMS).map(([source, target]) => ({ source, target })) } }));
    await event(host, 'config_updated');
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm', broadcast_phase: 'live' }));
    const answer = (m: Msg) => m.data?.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning');
    expect((await host.next(answer, 20_000)).data.action).toBe('session_started');
    const viewer = await openViewer(t, b.token, '?lang=es&tts=false');
    expect(viewer.status).toBe(200);
    await viewer.next((e) => e.event === 'connected');
    // Real time: the sentence being spoken is translated for viewers every 700 ms while it grows.
    await streamPcm(host, jfkPcm(), 1);
    host.send(vt('stop'));
    await viewer.next((e) => e.event === 'ended', 90_000);

    const translations = viewer.events.filter((e) => e.event === 'translation' && e.data.language === 'es');
    const termIn = (text: string) => Object.values(TERMS).find((term) => text.includes(term));
    const interims = translations.filter((e) => e.data.is_final === false);
    expect(interims.length).toBeGreaterThan(0);
    // An interim that translated a glossary word: the term is the glossary's, not the engine's word.
    const withTerm = interims.filter((e) => termIn(e.data.text));
    expect(withTerm.length).toBeGreaterThan(0);
    const interim = withTerm[0]!;
    const term = termIn(interim.data.text)!;
    const final = translations.find((e) => e.data.is_final === true && e.data.sid === interim.data.sid);
    expect(final, `the final translation of sid ${interim.data.sid}`).toBeDefined();
    expect(final!.data.text).toContain(term);
    // The interim came first (it precedes its final), and the host's own stream never carried it.
    expect(viewer.events.indexOf(interim)).toBeLessThan(viewer.events.indexOf(final!));
    expect(host.messages.some((m) => m.data?.action === 'translation' && m.data.is_final === false)).toBe(false);
    viewer.close();
    host.ws.close();
  }, 150_000);
});
