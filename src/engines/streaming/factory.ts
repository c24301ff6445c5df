/**
 * Catalogue entries for the streaming face of a file recognizer (over-file.ts). Which file
 * recognizers get one is a setting (PARLEY_LIVE_FROM_FILE_ENGINES, by engine id): a remote
 * Whisper server does by default, since without it a user with only that server gets no
 * live captions at all.
 */
import { sileroVadFactory } from '../builtin/silero-vad.js';
import type { EngineFactory } from '../registry.js';
import type { FileRecognizer, VoiceActivityDetector } from '../types.js';
import { StreamingOverFile } from './over-file.js';

export function liveFromFile(file: EngineFactory): EngineFactory {
  return {
    id: file.id,
    kind: 'streaming-stt',
    tier: file.tier,
    summary: `Live captions from ${file.id}: VAD utterances re-transcribed as they grow, the prefix two passes agree on as interim`,
    async create(ctx) {
      const e = ctx.config.engines;
      if (!e.liveFromFileEngines.includes(file.id)) return { unavailable: `${file.id} is not listed in PARLEY_LIVE_FROM_FILE_ENGINES` };
      const recognizer = await file.create(ctx);
      if ('unavailable' in recognizer) return recognizer;
      const vad = await sileroVadFactory.create(ctx);
      if ('unavailable' in vad) return { unavailable: `needs the VAD: ${vad.unavailable}` };
      return new StreamingOverFile(recognizer as FileRecognizer, vad as VoiceActivityDetector, {
        intervalMs: e.liveFromFileIntervalMs,
        maxUtteranceMs: e.liveFromFileMaxUtteranceMs,
      });
    },
  };
}
