/**
 * A multi_speaker import diarized by the neural diarizer on its real weights (sherpa-onnx,
 * pyannote segmentation + CAM++), installed into the project's models folder by
 * `PARLEY_SPEAKER_MODELS=on npm run setup` (CI does). The registry holds both diarizers, in the
 * catalogue's order, as the service builds it: the import must take the neural one. Skipped
 * where the models are not installed, except when PARLEY_TEST_REQUIRE_ENGINES names it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { sherpaDiarizationFactory } from '../../src/engines/neural/sherpa-diarization.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { createLogger } from '../../src/platform/logging.js';
import { requiredEngines } from '../engines/conformance/engines.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio, STEREO } from '../support/audio.js';
import { readSse } from '../tasks/harness.js';
import { builtinImportEngines, upload, watchSse } from './support.js';

const modelsDir = process.env.PARLEY_MODELS_DIR ?? join(import.meta.dirname, '..', '..', 'data', 'models');
const ctx = { config: loadConfig({}), modelsDir, logger: createLogger('silent'), loaded: [] };
const neural = await sherpaDiarizationFactory.create(ctx as never);
const missing = 'unavailable' in neural ? neural.unavailable : null;
if (missing && requiredEngines().includes(sherpaDiarizationFactory.id))
  throw new Error(`PARLEY_TEST_REQUIRE_ENGINES names ${sherpaDiarizationFactory.id}, but: ${missing}`);

describe.skipIf(missing !== null || !haveSharedAudio())('multi_speaker import on the neural diarizer', () => {
  let t: TestApp;
  beforeAll(async () => {
    const builtin = (await builtinImportEngines()).enginesOf('file-stt');
    const others = (await builtinImportEngines()).enginesOf('summarizer');
    const classic = (await classicDiarizerFactory.create(ctx as never)) as AnyEngine;
    const engines = EngineRegistry.fromEngines([neural as AnyEngine, classic, ...builtin, ...others]);
    t = await startTestApp({ engines });
  }, 60_000);
  afterAll(() => t?.close());

  it('the two voices of the stereo recording mixed to mono become speakers "1" and "2"', async () => {
    expect(t.app.deps.engines.select({ kind: 'diarizer' })).toMatchObject({ ok: true, engine: { id: 'neural/sherpa-diarization' } });
    const key = await t.app.deps.keys.createKey({ name: 'neural-speakers' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
    const res = await upload(t.url, key.api_key, { file: { path: STEREO }, fields: { recognition_mode: 'multi_speaker' } });
    expect(res.status).toBe(202);
    const events = await watchSse(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': key.api_key }).done;
    expect(events.at(-1)!.event, JSON.stringify(events.at(-1))).toBe('completed');
    const history = await readSse(`${t.url}/api/v1/sse/history/transcribe/${events.at(-1)!.data.task_id}?api_key=${key.api_key}`);
    const speakers = history.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { speaker_id: string }).speaker_id);
    expect(new Set(speakers)).toEqual(new Set(['1', '2']));
  }, 120_000);
});
