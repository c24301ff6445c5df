/**
 * The audio a live diarizer holds: 16 kHz mono samples of the utterance in progress, at most
 * `maxMs` of them (a longer utterance is judged on its last part), addressed by milliseconds of
 * the session. Finished utterances are released, so memory stays bounded whatever the length.
 */
const SAMPLES_PER_MS = 16;

export class LiveAudioBuffer {
  private readonly samples: Float32Array;
  private length = 0;
  /** Session time of samples[0]. */
  private startMs = 0;

  constructor(maxMs: number) {
    this.samples = new Float32Array(maxMs * SAMPLES_PER_MS);
  }

  /** Session time of the oldest sample held. */
  get heldFromMs(): number {
    return this.startMs;
  }

  get byteLength(): number {
    return this.samples.byteLength;
  }

  write(pcm: Int16Array): void {
    let src = pcm;
    // Past the cap, the oldest audio goes.
    const overflow = this.length + src.length - this.samples.length;
    if (src.length >= this.samples.length) {
      this.startMs += overflow / SAMPLES_PER_MS;
      this.length = 0;
      src = src.subarray(src.length - this.samples.length);
    } else if (overflow > 0) {
      this.samples.copyWithin(0, overflow, this.length);
      this.length -= overflow;
      this.startMs += overflow / SAMPLES_PER_MS;
    }
    for (let i = 0; i < src.length; i++) this.samples[this.length++] = (src[i] as number) / 32768;
  }

  /** The held part of [fromMs, toMs): its samples (a view, valid until the next write) and where it starts. */
  slice(fromMs: number, toMs: number): { samples: Float32Array; startMs: number } {
    const a = Math.max(0, Math.round((fromMs - this.startMs) * SAMPLES_PER_MS));
    const b = Math.min(this.length, Math.round((toMs - this.startMs) * SAMPLES_PER_MS));
    return { samples: this.samples.subarray(a, Math.max(a, b)), startMs: this.startMs + a / SAMPLES_PER_MS };
  }

  /** Drops the audio before `ms` (it belongs to finished utterances). */
  release(ms: number): void {
    const drop = Math.min(this.length, Math.max(0, Math.round((ms - this.startMs) * SAMPLES_PER_MS)));
    if (drop <= 0) return;
    this.samples.copyWithin(0, drop, this.length);
    this.length -= drop;
    this.startMs += drop / SAMPLES_PER_MS;
  }
}
