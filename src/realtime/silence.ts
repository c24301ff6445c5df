/**
 * Silence auto-end (spec: `stt_silence_timeout` after silenceTimeoutSeconds without speech,
 * `stt_silence_warning` before it; not counted while paused). "Speech" is a recognition
 * result with text. The clock is monotonic and real: tests shorten the timeout through the
 * start's `silenceTimeoutSeconds`, never by skipping time.
 */
export interface SilenceWatchOptions {
  timeoutMs: number;
  /** How long before the end the warning goes out (capped at half the timeout). */
  warningLeadMs: number;
  onWarning(silenceSeconds: number, remainingSeconds: number): void;
  onTimeout(silenceSeconds: number): void;
  clock?: () => number;
}

export class SilenceWatch {
  /** Silence counted before the current running stretch (pauses excluded). */
  private banked = 0;
  private since: number | null;
  private warned = false;
  private done = false;
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => number;
  private readonly lead: number;

  constructor(private readonly o: SilenceWatchOptions) {
    this.clock = o.clock ?? (() => performance.now());
    this.lead = Math.min(o.warningLeadMs, o.timeoutMs / 2);
    this.since = this.clock();
    // Ticks often enough that the warning and the end are late by a small fraction at most.
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.min(1000, o.timeoutMs / 20)));
    this.timer.unref();
  }

  /** Silence so far, in ms. */
  get silenceMs(): number {
    return this.banked + (this.since === null ? 0 : this.clock() - this.since);
  }

  speech(): void {
    this.banked = 0;
    this.warned = false;
    if (this.since !== null) this.since = this.clock();
  }

  pause(): void {
    if (this.since === null) return;
    this.banked += this.clock() - this.since;
    this.since = null;
  }

  resume(): void {
    if (this.since === null) this.since = this.clock();
  }

  stop(): void {
    this.done = true;
    clearInterval(this.timer);
  }

  private tick(): void {
    if (this.done || this.since === null) return;
    const silence = this.silenceMs;
    if (silence >= this.o.timeoutMs) {
      this.stop();
      this.o.onTimeout(Math.round(silence / 1000));
      return;
    }
    if (!this.warned && silence >= this.o.timeoutMs - this.lead) {
      this.warned = true;
      this.o.onWarning(Math.round(silence / 1000), Math.max(0, Math.round((this.o.timeoutMs - silence) / 1000)));
    }
  }
}
