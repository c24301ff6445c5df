/**
 * stt_init_failed: with one PocketSphinx decoder, a second concurrent start waits for it and
 * is refused when none frees up in time (the engine's 10 s); the connection stays and the
 * refused start's minute is refunded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { api, backends, type TestApp } from '../support/app.js';
import { connect, event, startLiveApp, startSession, ticketAndKey, vt } from './support.js';

describe.each(backends())('every recognizer busy (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    const ctx = { config: loadConfig({ PARLEY_POCKETSPHINX_DECODERS: '1' }), modelsDir: '/nowhere', logger: createLogger('silent') };
    const e = await pocketsphinxStreamingFactory.create(ctx as never);
    if ('unavailable' in e) throw new Error(e.unavailable);
    t = await startLiveApp(backend, { engines: EngineRegistry.fromEngines([e as AnyEngine]) });
  }, 60_000);
  afterAll(() => t?.close());

  it('a start that gets no decoder is refused with stt_init_failed and not charged; the connection stays', async () => {
    const first = await connect(t, [`ticket.${(await ticketAndKey(t)).ticket}`]);
    await startSession(first, {});
    const k = await ticketAndKey(t);
    const second = await connect(t, [`ticket.${k.ticket}`]);
    second.send(vt('start', { type: 'transcribe', transcription_languages: ['en'] }));
    const refused = await second.next((m) => m.type === 'error', 20_000);
    expect(refused.data).toMatchObject({ error_code: 'stt_init_failed', severity: 'fatal', details: { language: 'en' } });
    const usage = (await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key })).body.data;
    expect(usage).toEqual([expect.objectContaining({ type: 'recording', points: 0, in_progress: false, refunded: true })]);
    second.send({ type: 'health', data: {} });
    expect((await second.next()).type).toBe('health');
    first.send(vt('stop'));
    await event(first, 'task_complete', 20_000);
    // Not asserted: a new start once the decoder is free. The engine's DecoderPool keeps the
    // timed-out waiter, so the released decoder goes to it and is lost (reported to engines).
    second.ws.close();
    first.ws.close();
  }, 60_000);
});
