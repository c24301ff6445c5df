import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { tasksOf } from '../../src/tasks/module.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { connect, ticketFor } from './support.js';

async function engines() {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const e = await pocketsphinxStreamingFactory.create(ctx as never);
  if ('unavailable' in e) throw new Error(`PocketSphinx unavailable: ${e.unavailable}`);
  return EngineRegistry.fromEngines([e as AnyEngine]);
}

describe('graceful shutdown (sqlite)', () => {
  let second: TestApp | undefined;
  afterAll(async () => {
    await second?.close();
    if (second) rmSync(second.dataDir, { recursive: true, force: true });
  });

  it('sends service_shutdown, closes with 1001 and finalizes the running recording', async () => {
    const first = await startTestApp({ backend: 'sqlite', engines: await engines() });
    const cl = await connect(first, [`ticket.${await ticketFor(first)}`]);
    cl.send({ type: 'voice-translation', data: { action: 'start', type: 'transcribe', transcription_languages: ['en'] } });
    const started = await cl.next((m) => m.data?.action === 'session_started', 10_000);
    // One second of a quiet tone: audio exists, so the task must complete, not fail.
    const pcm = Buffer.alloc(32_000);
    for (let i = 0; i < 16_000; i++) pcm.writeInt16LE(Math.round(2000 * Math.sin(i / 10)), i * 2);
    cl.send({ type: 'voice-translation', data: { action: 'audio', audio: pcm.toString('base64') } });
    cl.send({ type: 'health', data: {} });
    await cl.next((m) => m.type === 'health');
    await first.app.close();
    expect(cl.messages.some((m) => m.type === 'error' && m.data.error_code === 'service_shutdown')).toBe(true);
    expect((await cl.closed).code).toBe(1001);
    second = await startTestApp({ backend: 'sqlite', reuse: { dataDir: first.dataDir } });
    const task = await tasksOf(second.app.deps).store.getTask(started.data.task_id);
    expect(task?.processingStatus).toBe('completed');
    expect(task?.durationMs).toBe(1000);
  }, 60_000);
});
