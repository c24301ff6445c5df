import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createLogger } from '../../src/platform/logging.js';
import { clock } from '../billing/support.js';
import { backends, startTestApp, type TestApp } from '../support/app.js';
import { type Client, connect, ticketAndKey } from './support.js';

// Real built-in engines: PocketSphinx (English streaming) and Apertium (installed pairs).
async function builtinEngines(): Promise<EngineRegistry> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  return EngineRegistry.create(ctx, [pocketsphinxStreamingFactory, apertiumFactory]);
}

describe.each(backends())('WebSocket start (%s)', (backend) => {
  const c = clock('2026-03-10T12:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend, now: c.now, engines: await builtinEngines() });
  });
  afterAll(() => t?.close());

  const open = async () => {
    const k = await ticketAndKey(t);
    return { ...k, cl: await connect(t, [`ticket.${k.ticket}`]) };
  };
  const start = async (cl: Client, data: Record<string, unknown>) => {
    cl.send({ type: 'voice-translation', data: { action: 'start', ...data } });
    return cl.next();
  };

  it('a rejected start leaves the connection open for the next one', async () => {
    const { cl } = await open();
    const r = await start(cl, { type: 'Conversation', transcription_languages: ['en'] });
    expect(r).toMatchObject({ type: 'error', data: { error_code: 'invalid_parameter', details: { field: 'type' } } });
    const m = await start(cl, { type: 'transcribe', transcription_languages: ['en'], recognition_mode: 'multi_speaker' });
    expect(m.data).toMatchObject({
      error_code: 'diarization_unavailable',
      message: 'No streaming recognizer here serves en with diarization.',
      details: { field: 'recognition_mode', missing: ['diarization'] },
    });
    const l = await start(cl, { type: 'transcribe', transcription_languages: ['xx-notreal'] });
    expect(l.data).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'transcription_languages' } });
    expect(l.data.details.valid_values).toContain('en');
    cl.send({ type: 'health', data: {} });
    expect((await cl.next()).type).toBe('health');
    cl.ws.close();
  });

  it('the key is checked again at start', async () => {
    const { cl, keyId } = await open();
    await t.app.deps.keys.updateKey(keyId, { disabled: true });
    const r = await start(cl, { type: 'transcribe', transcription_languages: ['en'] });
    expect(r.data.error_code).toBe('auth_key_disabled');
    cl.ws.close();
  });

  it('a budget that cannot cover the first minute gives auth_quota_exceeded and keeps the connection', async () => {
    const { cl, keyId } = await open();
    await t.app.deps.keys.updateKey(keyId, { monthlySpendLimit: 0 });
    const r = await start(cl, { type: 'transcribe', transcription_languages: ['en'] });
    expect(r.data).toMatchObject({
      error_code: 'auth_quota_exceeded',
      details: { budget_scope: 'key_monthly_limit', remaining_budget: 0 },
    });
    cl.send({ type: 'health', data: {} });
    expect((await cl.next()).type).toBe('health');
    cl.ws.close();
  });

  it('glossary fields in start give the config_ignored_in_start warning; the start goes on; a second start is refused', async () => {
    const { cl } = await open();
    const w = await start(cl, {
      type: 'transcribe',
      transcription_languages: ['en'],
      terminology: { en: [{ term: 'Parley' }] },
      glossary: { terms: [] },
    });
    expect(w.data).toMatchObject({
      error_code: 'config_ignored_in_start',
      severity: 'warning',
      details: { fields: ['terminology', 'glossary'] },
    });
    const started = await cl.next();
    expect(started.data.action).toBe('session_started');
    // The resume grace a client can see, at its default (PARLEY_WS_DISCONNECT_GRACE_SECONDS unset here; resume.test.ts sets it).
    expect(started.data.resume_grace_seconds).toBe(30);
    // start twice: refused, the running recording is untouched.
    const twice = await start(cl, { type: 'transcribe', transcription_languages: ['en'] });
    expect(twice.data).toMatchObject({ error_code: 'invalid_data', details: { action: 'start', state: 'started' } });
    cl.send({ type: 'voice-translation', data: { action: 'stop' } });
    expect((await cl.next((m) => m.data?.action === 'task_complete', 20_000)).data.status).toBe('failed'); // no audio
    cl.ws.close();
  });
});
