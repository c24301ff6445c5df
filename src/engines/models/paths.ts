/** Where models and the optional llama.cpp runtime live, from configuration. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineConfig } from '../settings.js';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));
/** The engine host's Python package and the virtual environment setup makes for it (scripts/setup-engine-host.sh). */
export const ENGINE_HOST_PACKAGE = `${PROJECT}engine-host`;
export const ENGINE_HOST_PYTHON = `${PROJECT}.venv/engine-host/bin/python`;

export function modelsDirFrom(config: EngineConfig): string {
  return config.engines.modelsDir ?? join(config.platform.dataDir, 'models');
}

/** npm prefix of the optional node-llama-cpp install (`models enable-llama`), outside the project's node_modules. */
export function llamaRuntimeDir(modelsDir: string): string {
  return join(modelsDir, '.runtime', 'llama');
}
