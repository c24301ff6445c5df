/**
 * multi_language live sessions over a real WebSocket. The remote tier's streaming face
 * (VAD-cut utterances, src/engines/streaming/over-file.ts) against the local OpenAI-compatible
 * transcription server, which detects the language like a Whisper server: a request naming no
 * language is answered with the next scripted language (verbose_json `language`). Real
 * speech from eSpeak NG (English, Spanish, French), Apertium both ways.
 * Each utterance is recognized, labelled (`detected_language`), translated and stored in its
 * language; a language outside the session's is recognized again in the last one heard, never
 * passed on as one of them; engines that cannot tell the languages apart refuse the start.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranscriptionFactory } from '../../src/engines/remote/openai-transcription.js';
import { liveFromFileFactory } from '../../src/engines/streaming/factory.js';
import { createLogger } from '../../src/platform/logging.js';
import { backends, startTestApp, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { connect, errorWith, event, type Msg, startSession, streamPcm, ticketAndKey, vt } from './support.js';

/** One sentence spoken by eSpeak NG, as 16 kHz s16le mono, then `silenceMs` of silence. */
const spoken = (voice: string, text: string, silenceMs = 1500) =>
  Buffer.concat([
    execFileSync('sh', ['-c', `espeak-ng -v ${voice} --stdout "${text}" | ffmpeg -v error -i pipe:0 -f s16le -ar 16000 -ac 1 pipe:1`], {
      maxBuffer: 16 << 20,
    }),
    Buffer.alloc(silenceMs * 32),
  ]);

/** The built-in recognizer, Apertium, and the remote server's live face (detection on or off). */
async function enginesWith(server: OpenAiServer, detection: boolean): Promise<EngineRegistry> {
  const config = loadConfig({
    PARLEY_REMOTE_STT_URL: server.url,
    PARLEY_ENGINE_TIERS: 'builtin,neural,remote',
    PARLEY_REMOTE_STT_LANGUAGE_DETECTION: detection ? 'true' : 'false',
    // One pass per utterance (no interim passes): the scripted detections map to utterances in order.
    PARLEY_LIVE_FROM_FILE_INTERVAL_MS: '10000',
    // The scripted server spreads its words over the audio it is sent: utterances stay at the VAD's segment.
    PARLEY_LIVE_FROM_FILE_LOOKBACK_MS: '300',
  });
  return EngineRegistry.create({ config, modelsDir: '/nowhere', logger: createLogger('silent') }, [
    pocketsphinxStreamingFactory,
    apertiumFactory,
    openAiTranscriptionFactory,
    sileroVadFactory,
    liveFromFileFactory,
  ]);
}

const redisFor = (backend: string): Record<string, string> =>
  backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

describe.each(backends())('multi_language live sessions (%s)', (backend) => {
  let server: OpenAiServer;
  let t: TestApp;
  beforeAll(async () => {
    server = await startOpenAiServer();
    server.transcripts = { english: 'good morning my friends', spanish: 'hola amigos buenos días', es: 'hasta luego' };
    t = await startTestApp({ engines: await enginesWith(server, true), backend, env: redisFor(backend) });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('each utterance in its language: detected_language on results, translated from it, stored with it', async () => {
    const { ticket } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(cl, {
      recognition_mode: 'multi_language',
      transcription_languages: ['en', 'es'],
      translation_languages: ['en', 'es'],
    });
    expect(started.data.recognition_mode).toBe('multi_language');
    const taskId = started.data.task_id as string;
    // English, Spanish, then French (none of the session's): the server reports each in turn.
    server.detect = ['english', 'spanish', 'french'];
    const from = server.requests.length;
    const audio = Buffer.concat([
      spoken('en', 'Good morning my friends.'),
      spoken('es', 'Hola amigos, buenos días.'),
      spoken('fr', 'Bonjour mes amis.'),
    ]);
    await streamPcm(cl, audio, 4);
    cl.send(vt('stop'));
    await event(cl, 'task_complete', 60_000);

    const finals = cl.messages.filter((m: Msg) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
    expect(finals.map((o) => [o.language, o.detected_language, o.text])).toEqual([
      ['en', 'en', 'Good morning my friends.'],
      ['es', 'es', 'Hola amigos buenos días.'],
      // Heard as French: recognized again in the last language heard (es), labelled so.
      ['es', 'es', 'Hasta luego.'],
    ]);
    // The requests: detection (no language) for each utterance, then the French one again in es.
    const asked = server.requests.slice(from).filter((r) => r.path === '/audio/transcriptions');
    expect(asked.map((r) => r.form?.language?.[0] ?? null)).toEqual([null, null, null, 'es']);
    // Each final is translated from its own language into the other target (not into itself).
    const translations = cl.messages.filter((m: Msg) => m.data?.action === 'translation').map((m) => m.data);
    const bySid = (sid: number) => translations.filter((x) => x.sid === sid).map((x) => x.language);
    expect(bySid(finals[0].sid)).toEqual(['es']);
    expect(bySid(finals[1].sid)).toEqual(['en']);
    expect(bySid(finals[2].sid)).toEqual(['en']);
    // The stored transcript: each sentence with its language and the translation into the other.
    const stored = await t.app.deps.tasks.store.listSentences(taskId);
    expect(stored.map((s) => [s.sid, s.language, Object.keys(s.translations ?? {})])).toEqual([
      [finals[0].sid, 'en', ['es']],
      [finals[1].sid, 'es', ['en']],
      [finals[2].sid, 'es', ['en']],
    ]);
    cl.ws.close();
  }, 90_000);
});

describe('multi_language refused where the engines cannot tell the languages apart (sqlite)', () => {
  let server: OpenAiServer;
  let remote: TestApp;
  let englishOnly: TestApp;
  beforeAll(async () => {
    server = await startOpenAiServer();
    // The server needs the language (detection off): en and es are each served, not told apart.
    remote = await startTestApp({ engines: await enginesWith(server, false), backend: 'sqlite' });
    // Only an English recognizer.
    const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
    englishOnly = await startTestApp({ engines: await EngineRegistry.create(ctx, [pocketsphinxStreamingFactory]), backend: 'sqlite' });
  }, 60_000);
  afterAll(async () => {
    await remote?.close();
    await englishOnly?.close();
    await server?.close();
  });

  const refusal = async (t: TestApp, code: string) => {
    const { ticket } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    cl.send(vt('start', { type: 'transcribe', recognition_mode: 'multi_language', transcription_languages: ['en', 'es'] }));
    const err = await errorWith(cl, code, 15_000);
    // The connection stays open: a single-language start still works.
    await startSession(cl, { transcription_languages: ['en'] });
    cl.send(vt('stop'));
    cl.ws.close();
    return err.data;
  };

  it('no recognizer detects the language: invalid_recognition_mode naming language_detection', async () => {
    const data = await refusal(remote, 'invalid_recognition_mode');
    expect(data.message).toBe('No streaming recognizer here serves en and es with interim results and language detection.');
    expect(data.details).toMatchObject({
      field: 'recognition_mode',
      languages: ['en', 'es'],
      engine_kind: 'streaming-stt',
      missing: ['language_detection'],
    });
  }, 60_000);

  it('only an English recognizer: invalid_parameter naming the language nothing serves', async () => {
    const data = await refusal(englishOnly, 'invalid_parameter');
    expect(data.message).toBe('No speech recognizer here serves "es".');
    // What GET /api/v1/languages offers live: English with the regions people pick.
    expect(data.details).toMatchObject({
      field: 'transcription_languages',
      valid_values: ['en-US', 'en-GB', 'en', 'en-AU', 'en-CA', 'en-IN'],
    });
  }, 60_000);
});
