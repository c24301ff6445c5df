/**
 * Live sessions on Whisper, the default recognizer (the engine host and Whisper base that
 * `npm run setup` installs), over a real WebSocket with the service's own engine catalogue:
 * - jfk as PCM and as WebM/Opus (what browsers send) gives the same near-exact finals;
 * - a glossary term the model does not know ("Picovoice") is heard with the term and not
 *   without it (decoder biasing plus terminology);
 * - multi_language follows a session that switches from English to German (German from
 *   eSpeak NG: no real German recording ships on these machines), each final labelled.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/engines/catalog.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio, JFK, JFK_TEXT, SHARED_AUDIO } from '../support/audio.js';
import { whisperContext, whisperMissing } from '../support/whisper.js';
import { type Client, connect, event, type Msg, startSession, streamPcm, ticketFor, vt } from './support.js';

const missing = whisperMissing();

const pcmOf = (file: string, args: string[] = []) =>
  execFileSync('ffmpeg', ['-v', 'error', ...args, '-i', file, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
    maxBuffer: 64 << 20,
  });

const finalsOf = (cl: Client) =>
  cl.messages.filter((m: Msg) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);

describe.skipIf(missing !== null || !haveSharedAudio())('live sessions on Whisper (engine host)', () => {
  let t: TestApp;
  let registry: EngineRegistry;
  beforeAll(async () => {
    registry = await EngineRegistry.create(whisperContext(), CATALOG, new Set(['streaming-stt', 'vad', 'translator', 'summarizer']));
    expect(registry.find({ kind: 'streaming-stt', language: 'en-US' })?.id).toBe('neural/whisper');
    t = await startTestApp({ engines: registry });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await registry?.close();
  });

  async function session(start: Record<string, unknown>, send: (cl: Client) => Promise<void>, glossary?: unknown): Promise<Client> {
    const cl = await connect(t, [`ticket.${await ticketFor(t)}`]);
    if (glossary) {
      cl.send(vt('config', glossary as Record<string, unknown>));
      await event(cl, 'config_updated', 15_000);
    }
    await startSession(cl, start);
    await send(cl);
    cl.send(vt('stop'));
    await cl.next((m) => m.data?.action === 'task_complete', 180_000);
    cl.ws.close();
    return cl;
  }

  it('jfk as PCM and as WebM/Opus: the same near-exact finals, interims before them', async () => {
    // At real-time pace: an utterance lasts long enough for its interim passes.
    const pcm = await session({ transcription_languages: ['en-US'] }, (cl) => streamPcm(cl, pcmOf(JFK), 1));
    const pcmText = finalsOf(pcm)
      .map((o) => o.text)
      .join(' ');
    expect(wordErrorRate(JFK_TEXT, pcmText)).toBeLessThanOrEqual(0.05);
    expect(pcm.messages.some((m) => m.data?.action === 'result' && !m.data.origin.is_final)).toBe(true);

    const webm = execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-ar', '48000', '-c:a', 'libopus', '-f', 'webm', 'pipe:1'], {
      maxBuffer: 16 << 20,
    });
    const web = await session({ transcription_languages: ['en-US'], audio_format: 'webm' }, async (cl) => {
      // As MediaRecorder sends it: a chunk every 250 ms of audio (here at twice real time).
      const size = Math.ceil(webm.length / 44);
      for (let i = 0; i < webm.length; i += size) {
        cl.ws.send(webm.subarray(i, i + size));
        await new Promise((r) => setTimeout(r, 125));
      }
    });
    const webText = finalsOf(web)
      .map((o) => o.text)
      .join(' ');
    expect(wordErrorRate(JFK_TEXT, webText)).toBeLessThanOrEqual(0.05);
  }, 300_000);

  it('"Picovoice" is heard with the term in the session glossary and not without it', async () => {
    const clip = pcmOf(join(SHARED_AUDIO, 'multiple_keywords.wav'), ['-ss', '29.5', '-t', '5.5']);
    const start = { transcription_languages: ['en-US'] };
    const withTerm = await session(start, (cl) => streamPcm(cl, clip, 2), { terminology: { 'en-US': [{ term: 'Picovoice' }] } });
    expect(finalsOf(withTerm).map((o) => o.text)).toContain('Picovoice.');
    const without = await session(start, (cl) => streamPcm(cl, clip, 2));
    expect(finalsOf(without).length).toBeGreaterThan(0);
    expect(
      finalsOf(without)
        .map((o) => o.text)
        .join(' '),
    ).not.toMatch(/picovoice/i);
  }, 300_000);

  it('multi_language follows a switch from English to German: each final in its language', async () => {
    const german = execFileSync(
      'sh',
      [
        '-c',
        'espeak-ng -v de --stdout "Guten Morgen, meine Damen und Herren. Heute sprechen wir über das Wetter." | ffmpeg -v error -i pipe:0 -f s16le -ar 16000 -ac 1 pipe:1',
      ],
      { maxBuffer: 16 << 20 },
    );
    const audio = Buffer.concat([pcmOf(JFK), Buffer.alloc(32 * 1500), german, Buffer.alloc(32 * 1500)]);
    const cl = await session({ recognition_mode: 'multi_language', transcription_languages: ['en-US', 'de-DE'] }, (c) =>
      streamPcm(c, audio, 2),
    );
    const finals = finalsOf(cl);
    const english = finals.filter((o) => o.detected_language === 'en-US');
    const deutsch = finals.filter((o) => o.detected_language === 'de-DE');
    expect(wordErrorRate(JFK_TEXT, english.map((o) => o.text).join(' '))).toBeLessThanOrEqual(0.1);
    expect(deutsch.map((o) => o.text).join(' ')).toMatch(/Guten Morgen/i);
    // In speech order: every English final before the German ones.
    expect(finals.findIndex((o) => o.detected_language === 'de-DE')).toBeGreaterThan(
      finals.findLastIndex((o) => o.detected_language === 'en-US'),
    );
  }, 300_000);
});
