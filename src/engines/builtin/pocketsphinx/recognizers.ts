/**
 * English file recognition with PocketSphinx: VAD segments decoded one by one as whole
 * utterances, word times on the file's timeline. Live streams are in streaming.ts; both
 * decode an utterance the same way (utterance.ts).
 */
import { EngineError } from '../../errors.js';
import type {
  FileRecognizer,
  FileSttOptions,
  FileTranscript,
  FileTranscriptSegment,
  PcmAudio,
  SpeechSegment,
  VoiceActivityDetector,
} from '../../types.js';
import type { DecoderPool } from './decoder-pool.js';
import { decodeUtterance, RATE, SEGMENT_PAD_MS, toInt16 } from './utterance.js';
import { vocabularyFor } from './vocabulary.js';

export { toFloat32, toInt16 } from './utterance.js';

/** Longer stretches of speech are not merged into one utterance. */
const MAX_UTTERANCE_MS = 20_000;

const CAPABILITIES = { languages: ['en'], streaming: true, interimResults: true, wordTimes: true, diarization: false };

/** Merges segments closer than `gapMs` and pads them, within [0, durationMs]. */
export function prepareSegments(segments: SpeechSegment[], durationMs: number, gapMs = 300): SpeechSegment[] {
  const merged: SpeechSegment[] = [];
  for (const s of segments) {
    const last = merged[merged.length - 1];
    if (last && s.startMs - last.endMs < gapMs && s.endMs - last.startMs <= MAX_UTTERANCE_MS) last.endMs = s.endMs;
    else merged.push({ ...s });
  }
  return merged.map((s) => ({ startMs: Math.max(0, s.startMs - SEGMENT_PAD_MS), endMs: Math.min(durationMs, s.endMs + SEGMENT_PAD_MS) }));
}

export class PocketSphinxFileRecognizer implements FileRecognizer {
  readonly id = 'builtin/pocketsphinx';
  readonly kind = 'file-stt' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly pool: DecoderPool,
    private readonly vad: VoiceActivityDetector | undefined,
  ) {}

  async transcribe(audio: PcmAudio, options: FileSttOptions): Promise<FileTranscript> {
    if (audio.sampleRate !== RATE) throw new EngineError('audio_invalid_format', 'PocketSphinx needs 16 kHz audio', { engineId: this.id });
    const durationMs = Math.round((audio.samples.length / RATE) * 1000);
    const found = this.vad ? await this.vad.segments(audio) : [{ startMs: 0, endMs: durationMs }];
    const segments = prepareSegments(found, durationMs);
    const vocabulary = await vocabularyFor(options.terms);
    const decoder = await this.pool.acquire('file', undefined, vocabulary).catch((err: unknown) => {
      throw new EngineError('stt_init_failed', `PocketSphinx could not start: ${String(err)}`, { engineId: this.id, cause: err });
    });
    const out: FileTranscriptSegment[] = [];
    try {
      for (const [i, seg] of segments.entries()) {
        if (options.signal?.aborted) throw new EngineError('stt_start_failed', 'aborted', { engineId: this.id });
        const pcm = toInt16(audio.samples.subarray(Math.floor((seg.startMs * RATE) / 1000), Math.floor((seg.endMs * RATE) / 1000)));
        const words = await decodeUtterance(decoder, pcm, seg.startMs);
        if (words.length)
          out.push({ text: words.map((w) => w.text).join(' '), startMs: words[0]!.startMs, endMs: words[words.length - 1]!.endMs, words });
        options.onProgress?.((i + 1) / segments.length);
      }
    } finally {
      this.pool.release(decoder);
    }
    return { text: out.map((s) => s.text).join(' '), language: options.language, segments: out, durationMs };
  }
}
