/**
 * Multi-channel and multi-speaker sessions compose ordinary streaming recognizers: one
 * stream per channel (or per known speaker), each result labelled with where it came from.
 * Engines need not know about channels: `openLabelled` copies the open options' `channel`
 * and `speakerId` onto every result (a speaker the engine itself reports, from its own
 * diarization, wins over the label). `openPerChannel` splits interleaved PCM for them.
 */
import type { EngineRegistry } from '../registry.js';
import type { Diarizer, RecognizerStream, StreamingRecognizer, StreamingSttOptions, SttResult } from '../types.js';

/** A diarizer that labels speakers as audio arrives (multi_speaker live sessions beside a plain recognizer), if one is loaded. */
export function liveDiarizer(registry: EngineRegistry): Diarizer | null {
  const d = registry.select({ kind: 'diarizer', live: true });
  return d.ok ? d.engine : null;
}

export function openLabelled(recognizer: StreamingRecognizer, options: StreamingSttOptions): Promise<RecognizerStream> {
  const { channel, speakerId } = options;
  if (channel === undefined && speakerId === undefined) return recognizer.open(options);
  return recognizer.open({
    ...options,
    onResult: (r: SttResult) =>
      options.onResult({
        ...r,
        ...(channel !== undefined ? { channel } : {}),
        ...(r.speakerId === undefined && speakerId !== undefined ? { speakerId } : {}),
      }),
  });
}

export interface ChannelStreams {
  /** Feed interleaved 16-bit PCM with one sample per channel per frame. */
  write(interleaved: Int16Array): void;
  end(): Promise<void>;
  abort(): void;
}

/**
 * Opens one labelled stream per channel (channel i goes to recognizers[i], which may be the
 * same engine with a different language per channel) and splits interleaved audio among them.
 */
export async function openPerChannel(
  channels: ReadonlyArray<{ recognizer: StreamingRecognizer; options: Omit<StreamingSttOptions, 'channel'> }>,
): Promise<ChannelStreams> {
  const streams: RecognizerStream[] = [];
  try {
    for (const [channel, c] of channels.entries()) streams.push(await openLabelled(c.recognizer, { ...c.options, channel }));
  } catch (err) {
    for (const s of streams) s.abort();
    throw err;
  }
  const n = streams.length;
  let carry = new Int16Array(0); // a frame split across writes
  return {
    write(interleaved) {
      const all = carry.length ? Int16Array.from([...carry, ...interleaved]) : interleaved;
      const frames = Math.floor(all.length / n);
      carry = all.slice(frames * n);
      for (let ch = 0; ch < n; ch++) {
        const mono = new Int16Array(frames);
        for (let f = 0; f < frames; f++) mono[f] = all[f * n + ch]!;
        streams[ch]!.write(mono);
      }
    },
    async end() {
      await Promise.all(streams.map((s) => s.end()));
    },
    abort() {
      for (const s of streams) s.abort();
    },
  };
}
