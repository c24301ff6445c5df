import { defineSection, settings } from '../platform/config/settings.js';

/**
 * Engine configuration. Each engine adds the settings it reads here (env names
 * PARLEY_<AREA>_...). Which engine serves which kind is chosen in `catalog.ts`.
 */
export const engineSettings = defineSection({
  ffmpegPath: settings.string('PARLEY_FFMPEG', 'ffmpeg binary used for decoding and encoding audio.', 'ffmpeg'),
  modelsDir: settings.optionalString('PARLEY_MODELS_DIR', 'Folder of downloaded neural models (default: PARLEY_DATA_DIR/models).'),
});
