/** Registry entries for PocketSphinx (English, Debian packages pocketsphinx + pocketsphinx-en-us). */
import type { EngineFactory } from '../../registry.js';
import type { VoiceActivityDetector } from '../../types.js';
import { sileroVadFactory } from '../silero-vad.js';
import { type DecoderOptions, DecoderPool, MODEL_DIR, modelsInstalled, pocketsphinxApi } from './native.js';
import { PocketSphinxFileRecognizer } from './recognizers.js';
import { PocketSphinxStreamingRecognizer } from './streaming.js';

/**
 * Decoders (file configuration) that decode the finals of all live streams, apart from the
 * main pool so that live streams holding every decoder of it never wait for their own
 * finals. Two: finals are short and this machine class has two cores.
 */
const FINAL_DECODERS = 2;

interface Shared {
  pool: DecoderPool;
  finals: DecoderPool;
  vad: VoiceActivityDetector;
}

let shared: Shared | null = null;

/**
 * One decoder pool and VAD for both recognizers. The pool's decoders without glossary words
 * share language-model copies (`sharedLanguageModels`: ~45 MB a decoder instead of ~80 MB);
 * the two finals decoders read their own, so a live final never waits for another job's
 * decoding on a shared copy.
 */
async function resources(poolSize: number, options: DecoderOptions): Promise<Shared | { unavailable: string }> {
  if (shared) return shared;
  if (!modelsInstalled())
    return { unavailable: 'PocketSphinx English models missing (Debian package pocketsphinx-en-us); run npm run setup' };
  try {
    pocketsphinxApi();
  } catch (err) {
    return { unavailable: `libpocketsphinx not loadable (Debian package libpocketsphinx3): ${String(err)}` };
  }
  const vad = await sileroVadFactory.create({} as never);
  if ('unavailable' in vad) return vad;
  shared = {
    pool: new DecoderPool(poolSize, MODEL_DIR, options),
    finals: new DecoderPool(FINAL_DECODERS, MODEL_DIR, { ...options, sharedLanguageModels: 0 }),
    vad: vad as VoiceActivityDetector,
  };
  return shared;
}

function decoderOptions(engines: {
  pocketsphinxStreamLookahead: number;
  pocketsphinxSharedLms: number;
  pocketsphinxStreamWords: number;
}): DecoderOptions {
  return {
    streamLookahead: engines.pocketsphinxStreamLookahead,
    sharedLanguageModels: engines.pocketsphinxSharedLms,
    streamWords: engines.pocketsphinxStreamWords,
  };
}

export const pocketsphinxStreamingFactory: EngineFactory = {
  id: 'builtin/pocketsphinx',
  kind: 'streaming-stt',
  tier: 'builtin',
  summary: 'PocketSphinx en-US streaming recognition (Debian pocketsphinx), silero VAD endpoints',
  async create(ctx) {
    const r = await resources(ctx.config.engines.pocketsphinxDecoders, decoderOptions(ctx.config.engines));
    return 'unavailable' in r ? r : new PocketSphinxStreamingRecognizer(r.pool, r.finals, r.vad);
  },
};

export const pocketsphinxFileFactory: EngineFactory = {
  id: 'builtin/pocketsphinx',
  kind: 'file-stt',
  tier: 'builtin',
  summary: 'PocketSphinx en-US file recognition with word times, segmented by silero VAD',
  async create(ctx) {
    const r = await resources(ctx.config.engines.pocketsphinxDecoders, decoderOptions(ctx.config.engines));
    return 'unavailable' in r ? r : new PocketSphinxFileRecognizer(r.pool, r.vad);
  },
};
