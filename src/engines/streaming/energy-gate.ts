/**
 * A second opinion beside the neural VAD for live captions: loud sound far above the stream's
 * own noise floor is speech to a caption service, even where silero calls it silence. silero
 * v5 misses some loud speech outright (jfk's "ask not", shouted over the crowd, stays below
 * 0.3): without this gate such words wait for the next utterance the VAD does open (the
 * lookback), 1.5-2 s late, or are never heard when nothing follows. The gate only opens an
 * utterance; the recognizer decides whether it holds words (an empty pass sends nothing), so a
 * false start costs one short pass, not a caption.
 *
 * Frames of 20 ms. The noise floor follows quiet frames quickly and rises slowly (1 dB a
 * second) through loud ones, so a long noise (applause, music) lifts it and stops counting
 * as loud. A frame is loud when it is `marginDb` above the floor and above `minDb` (absolute:
 * breaths and room noise in a quiet recording stay out). Speech starts when `startMs` of the
 * last 400 ms are loud, and ends after `endSilenceMs` without a loud frame (short: so the next
 * loud phrase starts again); `quietMs` says how long it has been quiet, for callers that
 * wait longer before they call a phrase over.
 */

const FRAME = 320; // 20 ms
const FRAME_MS = 20;
const WINDOW_FRAMES = 20; // 400 ms
const FLOOR_RISE_DB_PER_FRAME = 0.02; // 1 dB/s
const FLOOR_FALL = 0.3; // share of the distance a quiet frame pulls the floor down

export interface EnergyGateOptions {
  /** How far above the noise floor a frame must be to count as loud (dB). */
  marginDb?: number;
  /** The quietest level (dBFS RMS) that may count as loud. */
  minDb?: number;
  /** Loud audio within the last 400 ms that starts speech (ms). */
  startMs?: number;
  /** Audio without a loud frame that ends speech (ms). */
  endSilenceMs?: number;
}

export type EnergyEvent = { type: 'speech_start' | 'speech_end'; atMs: number };

export class EnergyGate {
  private readonly margin: number;
  private readonly minDb: number;
  private readonly startFrames: number;
  private readonly endFrames: number;
  private floor = Number.NaN;
  /** Loudness of the last WINDOW_FRAMES frames (1 loud, 0 not), a ring. */
  private readonly recent = new Uint8Array(WINDOW_FRAMES);
  private loudInWindow = 0;
  private frames = 0;
  private active = false;
  private lastLoudFrame = -1;
  /** Samples of a partial frame carried to the next write. */
  private carry = new Float32Array(FRAME);
  private carried = 0;

  constructor(options: EnergyGateOptions = {}) {
    this.margin = options.marginDb ?? 18;
    this.minDb = options.minDb ?? -30;
    this.startFrames = Math.ceil((options.startMs ?? 160) / FRAME_MS);
    this.endFrames = Math.ceil((options.endSilenceMs ?? 300) / FRAME_MS);
  }

  get speaking(): boolean {
    return this.active;
  }

  /** Time since the end of the last loud frame (ms), up to the audio written so far. */
  get quietMs(): number {
    return (this.frames - 1 - this.lastLoudFrame) * FRAME_MS;
  }

  /** Feeds 16 kHz samples; returns the starts and ends they complete (times from the stream's start). */
  write(samples: Float32Array): EnergyEvent[] {
    const events: EnergyEvent[] = [];
    let i = 0;
    if (this.carried > 0) {
      const take = Math.min(FRAME - this.carried, samples.length);
      this.carry.set(samples.subarray(0, take), this.carried);
      this.carried += take;
      i = take;
      if (this.carried < FRAME) return events;
      this.frame(this.carry, events);
      this.carried = 0;
    }
    for (; i + FRAME <= samples.length; i += FRAME) this.frame(samples.subarray(i, i + FRAME), events);
    if (i < samples.length) {
      this.carry.set(samples.subarray(i));
      this.carried = samples.length - i;
    }
    return events;
  }

  private frame(f: Float32Array, events: EnergyEvent[]): void {
    let sum = 0;
    for (let k = 0; k < f.length; k++) sum += f[k]! * f[k]!;
    const db = 10 * Math.log10(sum / f.length + 1e-12);
    if (Number.isNaN(this.floor)) this.floor = db;
    const loud = db > this.floor + this.margin && db > this.minDb;
    // The floor: pulled down by quieter frames, creeping up through louder ones.
    if (db < this.floor) this.floor += (db - this.floor) * FLOOR_FALL;
    else this.floor += FLOOR_RISE_DB_PER_FRAME;

    const slot = this.frames % WINDOW_FRAMES;
    this.loudInWindow += (loud ? 1 : 0) - this.recent[slot]!;
    this.recent[slot] = loud ? 1 : 0;
    if (loud) this.lastLoudFrame = this.frames;
    this.frames++;

    if (!this.active && this.loudInWindow >= this.startFrames) {
      this.active = true;
      // Speech began at the first loud frame of the window.
      let first = this.frames - WINDOW_FRAMES;
      while (first < this.frames && (first < 0 || !this.recent[first % WINDOW_FRAMES])) first++;
      events.push({ type: 'speech_start', atMs: first * FRAME_MS });
    } else if (this.active && this.frames - 1 - this.lastLoudFrame >= this.endFrames) {
      this.active = false;
      events.push({ type: 'speech_end', atMs: (this.lastLoudFrame + 1) * FRAME_MS });
    }
  }
}
