/**
 * Whisper in tests: the engine host and model that `npm run setup` installs into this
 * checkout (.venv/engine-host, data/models/whisper-base). Suites skip with the reason when
 * they are absent (a machine without PyPI), except under PARLEY_TEST_REQUIRE_WHISPER=1,
 * where the absence fails (CI sets it: the default engine must be tested there).
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { EngineHost } from '../../src/engines/host/engine-host.js';
import { ENGINE_HOST_PACKAGE, ENGINE_HOST_PYTHON } from '../../src/engines/neural/whisper.js';
import type { EngineContext } from '../../src/engines/registry.js';

export const PROJECT_MODELS = join(import.meta.dirname, '..', '..', 'data', 'models');
export const WHISPER_MODEL_DIR = process.env.PARLEY_TEST_WHISPER_MODEL_DIR ?? join(PROJECT_MODELS, 'whisper-base');

/** Why Whisper cannot run in this checkout, or null. */
export function whisperMissing(): string | null {
  const why = EngineHost.missing({ python: ENGINE_HOST_PYTHON, packageDir: ENGINE_HOST_PACKAGE, modelDir: WHISPER_MODEL_DIR });
  if (why && process.env.PARLEY_TEST_REQUIRE_WHISPER === '1') throw new Error(`PARLEY_TEST_REQUIRE_WHISPER=1 but ${why}`);
  if (why) console.warn(`Whisper tests skipped: ${why}`);
  return why;
}

/** An engine context whose Whisper is the checkout's model. */
export function whisperContext(env: Record<string, string> = {}): EngineContext {
  const config = loadConfig({ PARLEY_WHISPER_MODEL_DIR: WHISPER_MODEL_DIR, PARLEY_WHISPER: 'on', ...env });
  return { config, modelsDir: PROJECT_MODELS, logger: pino({ level: 'silent' }), loaded: [] };
}
