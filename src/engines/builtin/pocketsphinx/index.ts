/** Registry entries for PocketSphinx (English, Debian packages pocketsphinx + pocketsphinx-en-us). */
import type { EngineContext, EngineFactory } from '../../registry.js';
import { SharedResources } from '../../shared-resources.js';
import type { VoiceActivityDetector } from '../../types.js';
import { sileroVadFactory } from '../silero-vad.js';
import { DecoderPool } from './decoder-pool.js';
import { type DecoderOptions, MODEL_DIR, modelsInstalled, pocketsphinxApi } from './native.js';
import { PocketSphinxFileRecognizer } from './recognizers.js';
import { streamModel } from './stream-model.js';
import { PocketSphinxStreamingRecognizer } from './streaming.js';

/**
 * Decoders (file configuration) that decode the finals of all live streams, apart from the
 * main pool so that live streams holding every decoder of it never wait for their own
 * finals. Two: finals are short and this machine class has two cores.
 */
export const FINAL_DECODERS = 2;

interface Shared {
  pool: DecoderPool;
  finals: DecoderPool;
  vad: VoiceActivityDetector;
}

/**
 * One decoder pool and VAD for both recognizers of a registry (built once, kept in the
 * registry's shared resources; a factory called without them builds its own). Stream
 * decoders (live interims) load the cut stream model (stream-model.ts, ~26 MB a decoder
 * instead of ~85 MB); when it cannot be built they load the full one, said once in the log.
 */
function resources(ctx: EngineContext): Promise<Shared | { unavailable: string }> {
  return (ctx.shared ?? new SharedResources()).once('pocketsphinx', () => build(ctx));
}

async function build(ctx: EngineContext): Promise<Shared | { unavailable: string }> {
  if (!modelsInstalled())
    return { unavailable: 'PocketSphinx English models missing (Debian package pocketsphinx-en-us); run npm run setup' };
  try {
    pocketsphinxApi();
  } catch (err) {
    return { unavailable: `libpocketsphinx not loadable (Debian package libpocketsphinx3): ${String(err)}` };
  }
  const vad = await sileroVadFactory.create({} as never);
  if ('unavailable' in vad) return vad;
  const options = decoderOptions(ctx);
  const poolSize = ctx.config.engines.pocketsphinxDecoders;
  return {
    pool: new DecoderPool(poolSize, MODEL_DIR, options),
    finals: new DecoderPool(FINAL_DECODERS, MODEL_DIR, options),
    vad: vad as VoiceActivityDetector,
  };
}

function decoderOptions(ctx: EngineContext): DecoderOptions {
  const { pocketsphinxStreamLookahead, pocketsphinxStreamVocabulary } = ctx.config.engines;
  let model: DecoderOptions['streamModel'] = null;
  if (pocketsphinxStreamVocabulary > 0) {
    try {
      model = streamModel(MODEL_DIR, pocketsphinxStreamVocabulary);
    } catch (err) {
      ctx.logger.warn({ err }, 'PocketSphinx stream model could not be built: live streams use the full model (more memory)');
    }
  }
  return { streamLookahead: pocketsphinxStreamLookahead, streamModel: model };
}

export const pocketsphinxStreamingFactory: EngineFactory = {
  id: 'builtin/pocketsphinx',
  kind: 'streaming-stt',
  tier: 'builtin',
  summary: 'PocketSphinx en-US streaming recognition (Debian pocketsphinx), silero VAD endpoints',
  async create(ctx) {
    const r = await resources(ctx);
    if ('unavailable' in r) return r;
    // Live finals start at the first endpoint: their decoders are loaded now (~0.2 s each), not then.
    await r.finals.preload('file', FINAL_DECODERS);
    return new PocketSphinxStreamingRecognizer(r.pool, r.finals, r.vad, ctx.config.engines.pocketsphinxRefreshMs);
  },
};

export const pocketsphinxFileFactory: EngineFactory = {
  id: 'builtin/pocketsphinx',
  kind: 'file-stt',
  tier: 'builtin',
  summary: 'PocketSphinx en-US file recognition with word times, segmented by silero VAD',
  async create(ctx) {
    const r = await resources(ctx);
    return 'unavailable' in r ? r : new PocketSphinxFileRecognizer(r.pool, r.vad);
  },
};
