/** Where models and the optional llama.cpp runtime live, from configuration. */
import { join } from 'node:path';
import type { Config } from '../../config.js';

export function modelsDirFrom(config: Config): string {
  return config.engines.modelsDir ?? join(config.platform.dataDir, 'models');
}

/** npm prefix of the optional node-llama-cpp install (`models enable-llama`), outside the project's node_modules. */
export function llamaRuntimeDir(modelsDir: string): string {
  return join(modelsDir, '.runtime', 'llama');
}
