/**
 * Catalogue entry for the streaming faces of file recognizers (over-file.ts). Which file
 * recognizers get one is a setting (PARLEY_LIVE_FROM_FILE_ENGINES, by engine id): a remote
 * Whisper server does by default, since without it a user with only that server gets no
 * live captions at all. The faces wrap the file recognizers and the VAD already loaded
 * (`ctx.loaded`), so a model is never loaded twice; each face has its recognizer's id and tier.
 */
import type { EngineFactory } from '../registry.js';
import type { FileRecognizer, VoiceActivityDetector } from '../types.js';
import { StreamingOverFile } from './over-file.js';

export const liveFromFileFactory: EngineFactory = {
  id: 'live-from-file',
  kind: 'streaming-stt',
  tier: 'remote',
  summary: 'Live captions from file recognizers listed in PARLEY_LIVE_FROM_FILE_ENGINES: VAD utterances re-transcribed as they grow',
  uses: ['file-stt', 'vad'],
  async create(ctx) {
    const e = ctx.config.engines;
    const listed = e.liveFromFileEngines;
    if (listed.length === 0) return { unavailable: 'PARLEY_LIVE_FROM_FILE_ENGINES is empty' };
    const vad = ctx.loaded.find((x): x is VoiceActivityDetector => x.kind === 'vad');
    if (!vad) return { unavailable: 'needs a VAD (builtin/silero-vad), none is loaded' };
    const files = ctx.loaded.filter((x): x is FileRecognizer => x.kind === 'file-stt' && listed.includes(x.id));
    if (files.length === 0) return { unavailable: `none of ${listed.join(', ')} (PARLEY_LIVE_FROM_FILE_ENGINES) is loaded here` };
    return files.map(
      (f) =>
        new StreamingOverFile(f, vad, {
          intervalMs: e.liveFromFileIntervalMs,
          maxUtteranceMs: e.liveFromFileMaxUtteranceMs,
          lookbackMs: e.liveFromFileLookbackMs,
          tentativeTail: e.liveFromFileTentativeTail,
          tailGuardMs: e.liveFromFileTailGuardMs,
          energyGate: e.liveFromFileEnergyGate ? {} : false,
        }),
    );
  },
};
