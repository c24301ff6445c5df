/**
 * Bounds of one connection. Every input a client controls is bounded: frame size (ws
 * maxPayload), messages per second, audio bytes per second (16 kHz s16le mono is 32 000 B/s;
 * 4x real time is refused rather than buffered), time to `start`, keep-alive.
 */
export interface RealtimeLimits {
  maxFrameBytes: number;
  /** Token bucket for messages: refill per second and burst. */
  messagesPerSecond: number;
  messageBurst: number;
  /** Audio bytes per second allowed (after base64 decoding) and burst in bytes. */
  audioBytesPerSecond: number;
  audioBurstBytes: number;
  /** Violations in a row before the connection is closed with 4029. */
  maxViolations: number;
  /** A connection that has not sent a valid `start` by then is closed (4008); after `task_complete`, one without another start (1000). */
  preStartMs: number;
  /** ws-level ping interval; a connection that misses one pong is closed (4008). */
  pingIntervalMs: number;
  /** stt_silence_warning goes out this long before the silence auto-end (at most half of it). */
  silenceWarningMs: number;
  /** A recording whose client vanished is finalized after this grace period. */
  disconnectGraceMs: number;
  /** Shutdown: recordings may go on this long before they are finalized. */
  drainMs: number;
  /** A resume of another process's recording waits this long for its hand-over (src/realtime/live/fleet.ts). */
  handoverTimeoutMs: number;
  /** Shutdown: connections without a recording close this long after `service_shutdown`. */
  idleCloseMs: number;
}

export const DEFAULT_LIMITS: RealtimeLimits = {
  maxFrameBytes: 1024 * 1024,
  messagesPerSecond: 50,
  messageBurst: 100,
  audioBytesPerSecond: 4 * 32_000,
  // 30 s of audio at once: when this process's event loop stalls (a busy machine), a client
  // sending at real time has its queued audio read in one go; a 2 s burst dropped it (the
  // one-hour soak lost 1.1-1.7 s of 120 s recordings and cut the broadcast host with 4029).
  audioBurstBytes: 30 * 32_000,
  maxViolations: 20,
  preStartMs: 30_000,
  pingIntervalMs: 20_000,
  silenceWarningMs: 60_000,
  disconnectGraceMs: 30_000,
  drainMs: 5_000,
  handoverTimeoutMs: 60_000,
  idleCloseMs: 2_000,
};

/** Token bucket on a monotonic clock: `take(n)` is false when n tokens are not there. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = clock();
  }

  take(n = 1): boolean {
    const t = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}
