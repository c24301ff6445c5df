/**
 * multi_channel over a real WebSocket with the real PocketSphinx: stereo_diarization.wav
 * (a different voice on each channel) streamed as 2-channel interleaved PCM gives each
 * sentence on its own channel and speaker; every multi-channel error code is provoked at
 * start or by the channel actions; the plan's max_stt_streams bounds the channel count.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realKey } from '../billing/support.js';
import { openSubtitles, ownerToken } from '../subtitles/support.js';
import { api, backends, type TestApp } from '../support/app.js';
import { type Client, connect, errorWith, event, type Msg, startLiveApp, startSession, ticketAndKey, vt } from './support.js';

const STEREO = new URL('../../../shared/audio/stereo_diarization.wav', import.meta.url).pathname;
const haveAudio = existsSync(STEREO);

/** The recording as 16 kHz s16le, `channels` channels interleaved. */
const pcmOf = (channels: number) =>
  execFileSync('ffmpeg', ['-v', 'error', '-i', STEREO, '-f', 's16le', '-ar', '16000', '-ac', String(channels), 'pipe:1'], {
    maxBuffer: 16 << 20,
  });

const two = [
  { channel_id: 1, language: 'en', label: 'Left' },
  { channel_id: 2, language: 'en' },
];
const mc = (extra: Record<string, unknown> = {}) => ({
  recognition_mode: 'multi_channel',
  audio_format: 'pcm',
  channel_mode: 'interleaved',
  channels: two,
  ...extra,
});

/** Sends 100 ms of `frameBytes`-wide interleaved audio per message, twice real time. */
async function stream(cl: Client, pcm: Buffer, frameBytes: number) {
  const chunk = 3200 * (frameBytes / 2);
  for (let i = 0; i < pcm.length; i += chunk) {
    cl.send(vt('audio', { audio: pcm.subarray(i, i + chunk).toString('base64') }));
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CATALOGUE = JSON.stringify({
  onestream: {
    features: { transcribe: true, multi_channel: true },
    limits: { daily_soft_limit_minutes: null, max_stt_streams: 1 },
  },
});

describe.skipIf(!haveAudio).each(backends())('multi_channel live sessions (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend, { env: { PARLEY_PLANS: CATALOGUE } });
  }, 60_000);
  afterAll(() => t?.close());

  const client = async () => {
    const k = await ticketAndKey(t);
    return { ...k, cl: await connect(t, [`ticket.${k.ticket}`]) };
  };

  it('stereo_diarization.wav as 2-channel PCM: each sentence on its own channel and speaker', async () => {
    const { cl, key } = await client();
    const started = await startSession(cl, mc());
    expect(started.data).toMatchObject({
      recognition_mode: 'multi_channel',
      channel_mode: 'interleaved',
      channels: [
        { channel_id: 1, language: 'en', label: 'Left' },
        { channel_id: 2, language: 'en', label: null },
      ],
    });
    await stream(cl, pcmOf(2), 4);
    cl.send(vt('stop'));
    const done = await event(cl, 'task_complete', 150_000);
    expect(done.data.status).toBe('completed');
    const finals = cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    const left = finals.filter((o) => o.channel_id === 1);
    const right = finals.filter((o) => o.channel_id === 2);
    expect(left.length).toBeGreaterThan(0);
    expect(right.length).toBeGreaterThan(0);
    expect(left.every((o) => o.speaker_id === '1')).toBe(true);
    expect(right.every((o) => o.speaker_id === '2')).toBe(true);
    const leftText = left.map((o) => o.text.toLowerCase()).join(' ');
    const rightText = right.map((o) => o.text.toLowerCase()).join(' ');
    // PocketSphinx is rough; the content words of each voice land on its own channel.
    expect(leftText).toMatch(/curtain|wizard|complaint/);
    expect(rightText).toMatch(/seems|extremely|horizon|distant/);
    expect(leftText).not.toMatch(/seems|extremely/);
    expect(rightText).not.toMatch(/curtain|wizard/);
    // Interims and finals of one utterance share a sid; the two channels' sids differ.
    expect(new Set(finals.map((o) => o.sid)).size).toBe(finals.length);
    // The stored audio is the mono mix: as long as what was sent (5 s).
    expect(Math.abs(done.data.duration_ms - 5000)).toBeLessThan(100);

    // The transcript keeps channel = speaker, with the channel label as the speaker's name.
    const taskId = started.data.task_id;
    const csv = await fetch(`${t.url}/api/v1/tasks/${taskId}/transcript/export?format=txt&speakers=true`, {
      headers: { 'X-API-Key': key },
    }).then((r) => r.text());
    expect(csv).toContain('Left');
    // Rename works on multi-channel recordings; reassign and merge do not.
    const renamed = await api(t.url, 'PATCH', `/api/v1/tasks/${taskId}/speakers/rename`, {
      key,
      body: { speaker_id: '2', new_label: 'Right' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ speaker_id: '2', new_label: 'Right' });
    const reassign = await api(t.url, 'PATCH', `/api/v1/tasks/${taskId}/speakers/reassign`, {
      key,
      body: { sid: finals[0].sid, target_speaker_id: '2' },
    });
    expect(reassign.status).toBe(422);
    expect(reassign.body.error_code ?? reassign.body.data?.error_code).toBe('speaker_op_not_allowed_multi_channel');
    cl.ws.close();
  }, 240_000);

  const refused = async (start: Record<string, unknown>, code: string) => {
    const { cl } = await client();
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...start }));
    const m = await cl.next((x: Msg) => x.type === 'error' || x.data?.action === 'session_started', 15_000);
    cl.ws.close();
    expect(m.type).toBe('error');
    expect(m.data.error_code).toBe(code);
    expect(m.data.severity).toBe('error');
    return m.data;
  };

  it('start refusals: every multi-channel start code (connection kept)', async () => {
    expect((await refused(mc({ channel_mode: undefined }), 'channel_mode_required')).details.valid_values).toEqual(['interleaved']);
    expect((await refused(mc({ channel_mode: 'planar' }), 'invalid_channel_mode')).details.valid_values).toEqual(['interleaved']);
    await refused(mc({ channels: undefined }), 'channels_required');
    await refused(mc({ channels: [] }), 'channels_required');
    const nine = Array.from({ length: 9 }, (_, i) => ({ channel_id: (i % 8) + 1, language: 'en' }));
    expect((await refused(mc({ channels: nine }), 'too_many_channels')).details).toMatchObject({ max: 8, received: 9 });
    await refused(mc({ channels: [{ channel_id: 0, language: 'en' }] }), 'invalid_channel_id');
    await refused(mc({ channels: [{ channel_id: 9, language: 'en' }] }), 'invalid_channel_id');
    await refused(mc({ channels: [{ channel_id: 1 }] }), 'channel_language_required');
    await refused(mc({ channels: [{ language: 'en' }] }), 'channel_id_required');
    await refused(mc({ channels: [{ channel_id: 1, language: 'de' }] }), 'channel_language_not_allowed');
    expect(
      (await refused(mc({ channels: [{ channel_id: 1, language: 'en-US' }] }), 'channel_language_mismatch')).details.valid_values,
    ).toEqual(['en']);
    await refused(mc({ channels: [two[0], { channel_id: 1, language: 'en' }] }), 'channel_id_in_use');
    expect((await refused(mc({ audio_format: 'webm' }), 'multichannel_requires_pcm')).details.field).toBe('audio_format');
    await refused(mc({ tts_enabled: true }), 'multichannel_tts_not_allowed');
    await refused(mc({ type: 'broadcast', broadcast_token: 'x' }), 'multichannel_broadcast_not_allowed');
  }, 60_000);

  it('a channel language outside what the service offers (channel_language_not_allowed) apart from one outside the session list (channel_language_mismatch): start, add_channel, set_channel_language', async () => {
    // What the service offers is what GET /api/v1/languages lists for live sessions.
    const { cl, key } = await client();
    const offer = (await api(t.url, 'GET', '/api/v1/languages', { key })).body.data.live as string[];
    expect(offer).toEqual(expect.arrayContaining(['en', 'en-US', 'en-GB']));
    expect(offer).not.toContain('de');
    const session = ['en-US', 'en-GB'];
    const start = (channels: unknown[]) => mc({ transcription_languages: session, channels });
    // Not offered here (German, or no language tag at all): not_allowed, whatever the session's list says.
    for (const language of ['de', 'de-DE', 'klingon!', 42]) {
      const e = await refused(start([{ channel_id: 1, language }]), 'channel_language_not_allowed');
      expect(e.details).toMatchObject({ field: 'channels[0].language', language, valid_values: offer });
    }
    // Offered here, but not one of this session's transcription_languages: mismatch, listing the session's.
    for (const language of ['en', 'en-AU']) {
      expect(offer).toContain(language);
      const e = await refused(start([{ channel_id: 1, language }]), 'channel_language_mismatch');
      expect(e.details).toMatchObject({ field: 'channels[0].language', language, valid_values: session });
    }
    // The same two refusals on the channel actions of a running session (nothing changes, no cooldown taken).
    const started = await startSession(cl, start([{ channel_id: 1, language: 'en-US' }]));
    expect(started.data.channels).toEqual([{ channel_id: 1, language: 'en-US', label: null }]);
    const act = async (action: string, data: Record<string, unknown>, code: string) => {
      cl.send(vt(action, data));
      return (await errorWith(cl, code)).data;
    };
    expect((await act('add_channel', { channel_id: 2, language: 'de' }, 'channel_language_not_allowed')).details).toMatchObject({
      field: 'channel.language',
      valid_values: offer,
    });
    expect((await act('add_channel', { channel_id: 2, language: 'en' }, 'channel_language_mismatch')).details).toMatchObject({
      field: 'channel.language',
      valid_values: session,
    });
    expect((await act('set_channel_language', { channel_id: 1, language: 'fr' }, 'channel_language_not_allowed')).severity).toBe('error');
    expect((await act('set_channel_language', { channel_id: 1, language: 'en-AU' }, 'channel_language_mismatch')).details).toMatchObject({
      field: 'language',
      language: 'en-AU',
      valid_values: session,
    });
    // Both languages of the session are accepted, at once (the refusals took no cooldown).
    cl.send(vt('add_channel', { channel_id: 2, language: 'en-GB' }));
    expect((await event(cl, 'channel_added', 15_000)).data).toMatchObject({ channel_id: 2, language: 'en-GB' });
    cl.send(vt('set_channel_language', { channel_id: 1, language: 'en-GB' }));
    expect((await event(cl, 'channel_language_set', 15_000)).data).toMatchObject({
      channel_id: 1,
      language: 'en-GB',
      previous_language: 'en-US',
    });
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 30_000);
    cl.ws.close();
  }, 120_000);

  it('channel actions: add, set language, remove, and each of their refusals; a subtitle viewer gets the changes', async () => {
    const { cl, key } = await client();
    const started = await startSession(cl, mc({ channels: [{ channel_id: 1, language: 'en' }] }));
    // A floating-subtitle viewer (real SSE): channel events travel on the session stream, not only to the owner.
    const taskId = started.data.task_id as string;
    const viewer = await openSubtitles(t.url, taskId, (await ownerToken(t.url, key, taskId)).body.data.token);
    expect(viewer.status).toBe(200);
    const act = async (action: string, data: Record<string, unknown>, code: string) => {
      cl.send(vt(action, data));
      return (await errorWith(cl, code)).data;
    };
    await act('add_channel', { language: 'en' }, 'channel_id_required');
    await act('add_channel', { channel_id: 9, language: 'en' }, 'invalid_channel_id');
    await act('add_channel', { channel_id: 1, language: 'en' }, 'channel_id_in_use');
    await act('add_channel', { channel_id: 2 }, 'channel_language_required');
    cl.send(vt('add_channel', { channel_id: 2, language: 'en', label: 'Guest' }));
    const added = await event(cl, 'channel_added', 15_000);
    expect(added.data).toMatchObject({ channel_id: 2, language: 'en', label: 'Guest', channels: [{ channel_id: 1 }, { channel_id: 2 }] });
    // The channel was just changed: a second change within 5 s is refused with the wait.
    const busy = await act('set_channel_language', { channel_id: 2, language: 'en' }, 'channel_rebuild_too_frequent');
    expect(busy.details.cooldown_seconds).toBeGreaterThanOrEqual(1);
    expect(busy.details.cooldown_seconds).toBeLessThanOrEqual(5);
    await act('set_channel_language', { channel_id: 1, language: 'de' }, 'channel_language_not_allowed');
    await act('set_channel_language', { channel_id: 1 }, 'channel_language_required');
    await act('set_channel_language', { channel_id: 5, language: 'en' }, 'unknown_channel_id');
    cl.send(vt('set_channel_language', { channel_id: 1, language: 'en' }));
    expect((await event(cl, 'channel_language_set', 15_000)).data).toMatchObject({
      channel_id: 1,
      language: 'en',
      previous_language: 'en',
    });
    await act('remove_channel', {}, 'channel_id_required');
    await act('remove_channel', { channel_id: 3 }, 'unknown_channel_id');
    await act('switch_language', { language: 'en' }, 'multichannel_switch_language_not_allowed');
    await new Promise((r) => setTimeout(r, 5100));
    cl.send(vt('remove_channel', { channel_id: 2 }));
    expect((await event(cl, 'channel_removed', 15_000)).data).toMatchObject({ channel_id: 2, channels: [{ channel_id: 1 }] });
    await act('remove_channel', { channel_id: 1 }, 'channel_remove_not_allowed');
    cl.send(vt('pause'));
    await act('add_channel', { channel_id: 3, language: 'en' }, 'channel_action_while_paused');
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 30_000);
    cl.ws.close();
    await viewer.ended;
    const changes = viewer.events.filter((e) => e.event.startsWith('channel_'));
    expect(changes.map((e) => [e.event, e.data.channel_id])).toEqual([
      ['channel_added', 2],
      ['channel_language_set', 1],
      ['channel_removed', 2],
    ]);
    expect(changes[0]?.data).toMatchObject({
      task_id: taskId,
      label: 'Guest',
      channels: [{ channel_id: 1 }, { channel_id: 2, label: 'Guest' }],
    });
    expect(changes[2]?.data.channels).toEqual([{ channel_id: 1, language: 'en', label: null }]);
    // Numbered like every session event (SSE id), in order.
    const ids = changes.map((e) => Number(e.id));
    expect(ids.every((id, i) => id > 0 && (i === 0 || id > (ids[i - 1] as number)))).toBe(true);
  }, 60_000);

  it('channel actions in a single-mode session: not_multi_channel_session', async () => {
    const { cl } = await client();
    await startSession(cl, {});
    for (const action of ['add_channel', 'remove_channel', 'set_channel_language']) {
      cl.send(vt(action, { channel_id: 1, language: 'en' }));
      expect((await errorWith(cl, 'not_multi_channel_session')).data.details.action).toBe(action);
    }
    cl.send(vt('stop'));
    cl.ws.close();
  }, 30_000);

  it('a channel count over the plan: plan_feature_not_allowed with details.field max_stt_streams, at start and on add_channel', async () => {
    const k = await realKey(t);
    await t.app.deps.plans.setPlan(k.accountId, { mode: 'unlimited-plan', planName: 'onestream' });
    const ticket = async () => (await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key })).body.data.ticket as string;
    const cl = await connect(t, [`ticket.${await ticket()}`]);
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['en'], ...mc() }));
    const over = await errorWith(cl, 'plan_feature_not_allowed', 15_000);
    expect(over.data.details).toMatchObject({ field: 'max_stt_streams', max_stt_streams: 1, received: 2 });
    // The connection stays open: one channel fits.
    await startSession(cl, mc({ channels: [two[0]] }));
    cl.send(vt('add_channel', { channel_id: 2, language: 'en' }));
    const add = await errorWith(cl, 'plan_feature_not_allowed', 15_000);
    expect(add.data.details).toMatchObject({ field: 'max_stt_streams', received: 2 });
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 30_000);
    cl.ws.close();
  }, 60_000);
});
