/**
 * A live session in a language no built-in streaming recognizer serves (German), captioned by
 * the remote Whisper-class tier's streaming face: a real WebSocket client streams jfk.flac; the
 * local OpenAI-compatible server answers every pass from the real PocketSphinx (which hears
 * English whatever the language asked: it shows the route, the words show the audio). Without
 * the remote recognizer the same start is refused.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { openAiTranscriptionFactory } from '../../src/engines/remote/openai-transcription.js';
import { liveFromFileFactory } from '../../src/engines/streaming/factory.js';
import type { FileRecognizer } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { backends, startTestApp, type TestApp } from '../support/app.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { connect, JFK, jfkPcm, type Msg, streamPcm, ticketAndKey, vt } from './support.js';

const haveAudio = existsSync(JFK);

describe.skipIf(!haveAudio).each(backends())('live captions through the remote recognizer’s streaming face (WebSocket, %s)', (backend) => {
  let server: OpenAiServer;
  let t: TestApp;
  beforeAll(async () => {
    server = await startOpenAiServer();
    const ctx = { config: loadConfig({ PARLEY_REMOTE_STT_URL: server.url }), modelsDir: '/nowhere', logger: createLogger('silent') };
    server.recognizer = (await pocketsphinxFileFactory.create({ ...ctx, loaded: [] })) as FileRecognizer;
    const engines = await EngineRegistry.create(ctx, [openAiTranscriptionFactory, sileroVadFactory, liveFromFileFactory]);
    const redis: Record<string, string> = backend === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
    t = await startTestApp({ engines, backend, env: redis });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('a German session starts, gets finals from the remote passes, and completes', async () => {
    const { ticket } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    cl.send(vt('start', { type: 'transcribe', transcription_languages: ['de'], audio_format: 'pcm' }));
    const started = await cl.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 15_000);
    expect(started.data.action).toBe('session_started');
    const before = server.requests.length;
    await streamPcm(cl, jfkPcm(), 2);
    cl.send(vt('stop'));
    const done = await cl.next((m) => m.data?.action === 'task_complete', 90_000);
    expect(done.data).toMatchObject({ status: 'completed' });
    const finals = cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin?.is_final).map((m) => m.data.origin);
    expect(finals.length).toBeGreaterThan(0);
    expect(finals.map((o) => o.text.toLowerCase()).join(' ')).toContain('country');
    // The passes went to the remote server, asking for German.
    const passes = server.requests.slice(before).filter((r) => r.path === '/audio/transcriptions');
    expect(passes.length).toBeGreaterThanOrEqual(finals.length);
    expect(passes.every((r) => r.form?.language?.[0] === 'de')).toBe(true);
    // One draft in flight at most, and an utterance's final asked for beside it when it ends.
    expect(server.maxTranscriptionsInFlight).toBeGreaterThanOrEqual(1);
    expect(server.maxTranscriptionsInFlight).toBeLessThanOrEqual(2);
    cl.ws.close();
  }, 120_000);

  it('without the remote recognizer the same start is refused with the spec error', async () => {
    const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
    const engines = await EngineRegistry.create(ctx, [openAiTranscriptionFactory, sileroVadFactory, liveFromFileFactory]);
    const bare = await startTestApp({ engines, backend: 'sqlite' });
    try {
      const { ticket } = await ticketAndKey(bare);
      const cl = await connect(bare, [`ticket.${ticket}`]);
      cl.send(vt('start', { type: 'transcribe', transcription_languages: ['de'], audio_format: 'pcm' }));
      const refused = await cl.next((m: Msg) => m.type === 'error' || m.data?.action === 'session_started', 15_000);
      expect(refused.type).toBe('error');
      expect(refused.data).toMatchObject({
        error_code: 'invalid_parameter',
        severity: 'error',
        details: { field: 'transcription_languages' },
      });
      cl.ws.close();
    } finally {
      await bare.close();
    }
  }, 60_000);
});
