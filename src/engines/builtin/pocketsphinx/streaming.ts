/**
 * Live English recognition with PocketSphinx. Two decoders per utterance:
 * - the session's stream decoder (one pass, no lookahead, the cut stream model) gives the
 *   interims as the audio arrives, decoding it in 100 ms pieces; while an utterance goes on,
 *   an idle finals decoder decodes the utterance so far every REFRESH_EVERY_MS and later
 *   interims start with its words (maybeRefresh);
 * - at each VAD endpoint, the utterance's audio (the VAD segment with the file path's
 *   300 ms on each side) is decoded again by a decoder of the file configuration (cepstral
 *   mean over the whole utterance, second pass) from a small separate pool: that is the
 *   final. So a live final is the file result of the same audio, and the same audio gives
 *   the same final on every run, whatever the decoders heard before.
 * The stream decoder goes on with the next utterance meanwhile and its interims go out at once,
 * numbered by utterance (SttResult.utterance), while the previous final is still decoded. Only
 * when an utterance that showed no interim waits for its final do the next one's interims wait
 * too: an utterance's first result always comes before the next one's (sentence numbers follow
 * the speech). With `inUtteranceOrder` (multi_speaker) they wait for every earlier final.
 */
import { EngineError } from '../../errors.js';
import type { RecognizerStream, StreamingRecognizer, StreamingSttOptions, VoiceActivityDetector } from '../../types.js';
import type { DecoderPool } from './decoder-pool.js';
import { PocketSphinxStream } from './live-stream.js';
import { REFRESH_EVERY_MS } from './stream-tuning.js';
import { vocabularyFor } from './vocabulary.js';

const CAPABILITIES = { languages: ['en'], streaming: true, interimResults: true, wordTimes: true, diarization: false };

export class PocketSphinxStreamingRecognizer implements StreamingRecognizer {
  readonly id = 'builtin/pocketsphinx';
  readonly kind = 'streaming-stt' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly pool: DecoderPool,
    /** File-configuration decoders for the finals of all live streams. */
    private readonly finals: DecoderPool,
    private readonly vad: VoiceActivityDetector,
    /** Speech between refreshes of the interims (maybeRefresh), ms; 0: none; unset: the default. */
    private readonly refreshEveryMs = REFRESH_EVERY_MS,
    private readonly acquireTimeoutMs = 10_000,
  ) {}

  async open(options: StreamingSttOptions): Promise<RecognizerStream> {
    const vocabulary = await vocabularyFor(options.terms);
    const giveUp = AbortSignal.timeout(this.acquireTimeoutMs);
    const decoder = await this.pool.acquire('stream', giveUp, vocabulary).catch((err: unknown) => {
      if (giveUp.aborted)
        throw new EngineError('stt_init_failed', 'all PocketSphinx decoders are busy', { retryable: true, engineId: this.id });
      throw err;
    });
    return new PocketSphinxStream(decoder, this.pool, this.finals, this.vad, options, vocabulary, this.refreshEveryMs);
  }
}
