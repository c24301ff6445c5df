/**
 * The local LLM in tests: the node-llama-cpp runtime and GGUF model that `npm run setup`
 * installs into the models folder (PARLEY_MODELS_DIR, else this checkout's data/models).
 * Suites skip with the reason when they are absent (a machine without PyPI), except under
 * PARLEY_TEST_REQUIRE_LLAMA=1, where the absence fails (CI sets it: the default setup's
 * custom summaries must be tested there).
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { llamaFromContext } from '../../src/engines/neural/llama-cpp.js';
import type { EngineContext } from '../../src/engines/registry.js';
import { PROJECT_MODELS } from './whisper.js';

export const LLAMA_MODELS_DIR = process.env.PARLEY_MODELS_DIR ?? PROJECT_MODELS;

/** An engine context on the setup's models folder (extra settings in `env`). */
export function llamaContext(env: Record<string, string> = {}): EngineContext {
  const config = loadConfig({ PARLEY_MODELS_DIR: LLAMA_MODELS_DIR, ...env });
  return { config, modelsDir: LLAMA_MODELS_DIR, logger: pino({ level: 'silent' }), loaded: [] };
}

/** Why the local LLM cannot run here (loading it once to find out), or null. */
export async function llamaMissing(): Promise<string | null> {
  const llm = await llamaFromContext(llamaContext()).catch((err: unknown) => ({ unavailable: String(err) }));
  const why = 'unavailable' in llm ? llm.unavailable : null;
  if (why && process.env.PARLEY_TEST_REQUIRE_LLAMA === '1') throw new Error(`PARLEY_TEST_REQUIRE_LLAMA=1 but ${why}`);
  if (why) console.warn(`local LLM tests skipped: ${why}`);
  return why;
}
