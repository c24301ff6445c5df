/**
 * In-session TTS over a real WebSocket with the real engines (PocketSphinx, Apertium en->es,
 * eSpeak NG): start validation of the TTS fields, tts_ready for every final Spanish translation
 * (sync mode, in order, MP3 with word boundaries), the TTS actions and their error codes, and
 * the plan check.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createLogger } from '../../src/platform/logging.js';
import { realKey } from '../billing/support.js';
import { api, backends, type TestApp } from '../support/app.js';
import {
  type Client,
  connect,
  errorWith,
  event,
  JFK,
  jfkPcm,
  type Msg,
  startLiveApp,
  startSession,
  streamPcm,
  ticketFor,
  vt,
  waitFor,
} from './support.js';

const limits = { daily_soft_limit_minutes: null, daily_hard_limit_minutes: null, max_concurrent_sessions: null, max_session_minutes: null };
const CATALOGUE = JSON.stringify({ notts: { features: { transcribe: true, translation: true }, limits } });

async function engines(): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  return EngineRegistry.create(ctx, [pocketsphinxStreamingFactory, apertiumFactory, espeakFactory]);
}

const ttsReady = (messages: Msg[]) => messages.filter((m) => m.data?.action === 'tts_ready').map((m) => m.data);
const isMp3 = (b: Buffer) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0);

describe.each(backends())('in-session TTS (%s)', (backend) => {
  let t: TestApp;
  let voices: string[];
  beforeAll(async () => {
    const registry = await engines();
    voices = registry
      .enginesOf('tts')[0]!
      .voices('es')
      .map((v) => v.voice_name);
    t = await startLiveApp(backend, { engines: registry, env: { PARLEY_PLANS: CATALOGUE } });
  }, 60_000);
  afterAll(() => t?.close());

  const open = async (): Promise<Client> => connect(t, [`ticket.${await ticketFor(t)}`]);
  const refusal = async (cl: Client, data: Record<string, unknown>) => {
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...data }));
    return (await cl.next((m) => m.type === 'error')).data;
  };

  it('start: each TTS field refused with its code, field and valid values', async () => {
    const cl = await open();
    expect(voices.length).toBeGreaterThan(0);
    expect(await refusal(cl, { tts_enabled: true })).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'tts_language' } });
    expect(await refusal(cl, { translation_languages: ['es'], tts_enabled: true, tts_language: 'fr' })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'tts_language', valid_values: ['es'] },
    });
    expect(await refusal(cl, { translation_languages: ['es'], tts_enabled: true, tts_voice: 'nobody' })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'tts_voice', valid_values: voices },
    });
    expect(await refusal(cl, { translation_languages: ['es'], tts_enabled: true, tts_mode: 'SYNC' })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'tts_mode', valid_values: ['sync', 'async'] },
    });
    expect(await refusal(cl, { translation_languages: ['es'], tts_enabled: true, tts_config: { speaking_rate: 3 } })).toMatchObject({
      error_code: 'invalid_parameter',
      details: { field: 'tts_config.speaking_rate' },
    });
    expect(await refusal(cl, { type: 'record', tts_enabled: true })).toMatchObject({ error_code: 'record_tts_not_allowed' });
    expect(
      await refusal(cl, {
        recognition_mode: 'multi_channel',
        channel_mode: 'interleaved',
        channels: [{ channel_id: 1, language: 'en' }],
        tts_enabled: true,
      }),
    ).toMatchObject({
      error_code: 'multichannel_tts_not_allowed',
    });
    cl.ws.close();
  }, 30_000);

  it('a plan without tts: plan_feature_not_allowed (field tts_enabled), the connection kept', async () => {
    const k = await realKey(t);
    await t.app.deps.plans.setPlan(k.accountId, { mode: 'unlimited-plan', planName: 'notts' });
    const r = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    const cl = await connect(t, [`ticket.${r.body.data.ticket}`]);
    expect(await refusal(cl, { translation_languages: ['es'], tts_enabled: true })).toMatchObject({
      error_code: 'plan_feature_not_allowed',
      details: { field: 'tts_enabled', plan: 'notts' },
    });
    await startSession(cl, { translation_languages: ['es'] });
    // Turning it on mid-session is refused the same way.
    cl.send(vt('set_tts', { tts_enabled: true }));
    expect((await errorWith(cl, 'plan_feature_not_allowed')).data.details).toMatchObject({ field: 'tts_enabled' });
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 20_000);
    cl.ws.close();
  }, 30_000);

  it.skipIf(!existsSync(JFK))(
    'sync: every final Spanish translation spoken in order as MP3 with word boundaries; the TTS actions',
    async () => {
      const cl = await open();
      const before = (m: Msg) => m.type === 'error' && m.data.details?.action;
      cl.send(vt('tts_play', { sid: 1 }));
      expect((await cl.next(before)).data).toMatchObject({ error_code: 'session_not_started', details: { action: 'tts_play' } });
      await startSession(cl, { translation_languages: ['es'], tts_enabled: true, tts_language: 'es', tts_mode: 'sync' });
      await streamPcm(cl, jfkPcm(), 2);
      cl.send(vt('stop'));
      await event(cl, 'task_complete', 150_000);
      const translations = cl.messages.filter((m) => m.data?.action === 'translation' && m.data.language === 'es').map((m) => m.data);
      const finals = new Map(
        cl.messages
          .filter((m) => m.data?.action === 'result' && m.data.origin.is_final)
          .map((m) => [m.data.origin.sid, m.data.origin.text]),
      );
      expect(translations.length).toBeGreaterThan(0);
      const spoken = ttsReady(cl.messages);
      expect(spoken.map((s) => s.sid)).toEqual(translations.map((tr) => tr.sid));
      for (const s of spoken) {
        const tr = translations.find((x) => x.sid === s.sid);
        expect(s).toMatchObject({ language: 'es', text: tr.text, transcript: finals.get(s.sid), format: 'mp3' });
        expect(isMp3(Buffer.from(s.audio, 'base64'))).toBe(true);
        expect(s.duration_ms).toBeGreaterThan(200);
        expect(s.boundaries.length).toBeGreaterThan(0);
        for (const b of s.boundaries) {
          expect(s.text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
          expect(b.offset_ms).toBeGreaterThanOrEqual(0);
        }
      }
      cl.ws.close();
    },
    300_000,
  );

  it.skipIf(!existsSync(JFK))(
    'tts_play, tts_stop, tts_mode, set_tts, set_speaking_speed on a running session',
    async () => {
      const cl = await open();
      // No TTS at start: speaking speed cannot be set; set_tts turns it on.
      await startSession(cl, { translation_languages: ['es'] });
      cl.send(vt('set_speaking_speed', { speaking_speed: 'slow' }));
      expect((await errorWith(cl, 'set_speaking_speed_failed')).data.details).toMatchObject({ reason: 'tts_disabled' });
      cl.send(vt('set_tts', { tts_enabled: true, tts_language: 'de' }));
      expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({
        action: 'set_tts',
        field: 'tts_language',
        valid_values: ['es'],
      });
      cl.send(vt('set_tts', { tts_enabled: true, tts_voice: voices.at(-1) }));
      expect((await event(cl, 'tts_updated')).data).toMatchObject({
        tts_enabled: true,
        tts_language: 'es',
        tts_voice: voices.at(-1),
        tts_mode: 'sync',
      });
      cl.send(vt('tts_mode', { tts_mode: 'later' }));
      expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({
        action: 'tts_mode',
        field: 'tts_mode',
        valid_values: ['sync', 'async'],
      });
      cl.send(vt('tts_mode', { tts_mode: 'async' }));
      expect((await event(cl, 'tts_mode_changed')).data).toMatchObject({ tts_mode: 'async' });

      // The first sentence, then silence: its finals and translations come, then nothing more is said.
      await streamPcm(cl, Buffer.concat([jfkPcm().subarray(0, 4 * 32_000), Buffer.alloc(2 * 32_000)]), 2);
      // async outside conversations: each final translation is still spoken on its own.
      const first = await cl.next((m) => m.data?.action === 'tts_ready', 90_000);
      const sid = first.data.sid as number;
      const translated = (ms: Msg[]) => ms.filter((m) => m.data?.action === 'translation').length;
      await waitFor(cl, (ms) => ttsReady(ms).length >= translated(ms), 90_000);

      cl.send(vt('tts_play', { sid, length: 21 }));
      expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({ action: 'tts_play', field: 'length', max: 20 });
      cl.send(vt('tts_play', { sid: 999 }));
      expect((await errorWith(cl, 'invalid_data')).data.details).toMatchObject({ field: 'sid', reason: 'no_translation' });
      cl.send(vt('set_speaking_speed', { speaking_speed: 'warp' }));
      expect((await errorWith(cl, 'set_speaking_speed_failed')).data.details).toMatchObject({
        field: 'speaking_speed',
        valid_values: ['slow', 'normal', 'fast'],
      });

      // The same sentence at normal and at slow speed: slow takes longer.
      const playOnce = async () => {
        const count = ttsReady(cl.messages).length;
        cl.send(vt('tts_play', { sid }));
        const m = await cl.next(
          (x) => x.data?.action === 'tts_ready' && x.data.sid === sid && ttsReady(cl.messages).length > count,
          30_000,
        );
        return m.data;
      };
      cl.send(vt('set_speaking_speed', { speaking_speed: 'normal' }));
      expect((await event(cl, 'tts_updated')).data.speaking_rate).toBe(1);
      const normal = await playOnce();
      cl.send(vt('set_speaking_speed', { speaking_speed: 'slow' }));
      expect((await event(cl, 'tts_updated')).data.speaking_rate).toBe(0.8);
      const slow = await playOnce();
      expect(slow.text).toBe(normal.text);
      expect(slow.duration_ms).toBeGreaterThan(normal.duration_ms);

      cl.send(vt('tts_stop'));
      expect((await event(cl, 'tts_stopped')).data).toHaveProperty('dropped');
      cl.send(vt('stop'));
      await event(cl, 'task_complete', 150_000);
      cl.ws.close();
    },
    300_000,
  );
});
