/**
 * The bounded queue in front of one subscriber's connection (the slow-consumer policy).
 *
 * Frames go straight to the transport while it accepts them. Once the transport pushes back
 * (WebSocket `bufferedAmount` over its high-water mark, SSE `write()` returning false) frames
 * wait here until it drains, and:
 * - an interim frame replaces the interim still waiting (a newer interim supersedes it; the
 *   replaced one counts as dropped), so at most one interim waits at any time;
 * - every other frame (finals, translations, status, speaker edits) is kept, in order;
 * - past `maxFrames` waiting frames or `maxBytes` waiting bytes the subscriber is cut off:
 *   the queue is emptied and `onOverflow` closes its connection.
 * So one subscriber holds at most maxBytes (+ the transport's high-water mark) of server
 * memory, and never delays the others: every subscriber has its own outbox.
 */

/**
 * A frame: text, or bytes encoded once and written as they are to many subscribers (the
 * broadcast viewer fan-out, src/broadcasts/fanout/). Only SSE transports are given bytes.
 */
export type Frame = string | Uint8Array;

/** Where an outbox writes: a WebSocket or an SSE response (sinks.ts). */
export interface Transport<F extends Frame = string> {
  /** Writes a frame; false when the transport is over its high-water mark (wait for onDrain). */
  write(frame: F): boolean;
  /** Calls `cb` once when the transport can take more. */
  onDrain(cb: () => void): void;
}

export interface OutboxPolicy {
  /** Frames that may wait (interims included) before the subscriber is cut off. */
  maxFrames: number;
  /** Bytes (UTF-16 length of text frames, byte length of encoded ones) that may wait before the subscriber is cut off. */
  maxBytes: number;
}

/** The policy of every session-stream subscriber (documented in ARCHITECTURE.md "Session event stream"). */
export const SUBSCRIBER_POLICY: OutboxPolicy = { maxFrames: 1000, maxBytes: 1 << 20 };

export interface OutboxStats {
  /** Frames written to the transport. */
  written: number;
  /** Interim frames replaced by a newer one while waiting. */
  dropped: number;
  /** Frames waiting now, and the most that ever waited. */
  queued: number;
  maxQueued: number;
  queuedBytes: number;
  /** Set once the outbox was cut off or closed. */
  closed: 'overflow' | 'closed' | null;
}

interface Waiting<F extends Frame> {
  frame: F | '';
  interim: boolean;
  /** Replaced by a newer interim: skipped when the queue drains. */
  stale: boolean;
}

export class Outbox<F extends Frame = string> {
  private readonly queue: Waiting<F>[] = [];
  private head = 0;
  private waitingInterim: Waiting<F> | null = null;
  private blocked = false;
  readonly stats: OutboxStats = { written: 0, dropped: 0, queued: 0, maxQueued: 0, queuedBytes: 0, closed: null };

  constructor(
    private readonly transport: Transport<F>,
    private readonly policy: OutboxPolicy,
    private readonly onOverflow: (stats: OutboxStats) => void,
  ) {}

  get closed(): boolean {
    return this.stats.closed !== null;
  }

  /** Frames are waiting or the transport pushed back: a producer that can wait should. */
  get congested(): boolean {
    return this.blocked || this.stats.queued > 0;
  }

  /** Queues or writes one frame; false once the outbox is closed. */
  offer(frame: F, interim = false): boolean {
    if (this.closed) return false;
    if (!this.blocked && this.stats.queued === 0) {
      this.writeNow(frame);
      return true;
    }
    const old = interim ? this.waitingInterim : null;
    if (old) {
      this.stats.queued--;
      this.stats.queuedBytes -= old.frame.length;
      this.stats.dropped++;
      // Last in the queue: replaced in place; else skipped later (at most one stale entry per kept frame).
      if (this.queue[this.queue.length - 1] === old) this.queue.pop();
      else {
        old.stale = true;
        old.frame = '';
      }
    }
    const w: Waiting<F> = { frame, interim, stale: false };
    this.queue.push(w);
    if (interim) this.waitingInterim = w;
    this.stats.queued++;
    this.stats.queuedBytes += frame.length;
    if (this.stats.queued > this.stats.maxQueued) this.stats.maxQueued = this.stats.queued;
    if (this.stats.queued > this.policy.maxFrames || this.stats.queuedBytes > this.policy.maxBytes) {
      this.close('overflow');
      this.onOverflow(this.stats);
      return false;
    }
    if (!this.blocked) this.flush();
    return true;
  }

  /** Stops writing and forgets what waits (the connection is going away). */
  close(reason: 'overflow' | 'closed' = 'closed'): void {
    if (this.closed) return;
    this.stats.closed = reason;
    this.queue.length = 0;
    this.head = 0;
    this.waitingInterim = null;
    this.stats.queued = 0;
    this.stats.queuedBytes = 0;
  }

  private writeNow(frame: F): void {
    this.stats.written++;
    if (!this.transport.write(frame)) {
      this.blocked = true;
      this.transport.onDrain(() => {
        this.blocked = false;
        this.flush();
      });
    }
  }

  private flush(): void {
    while (!this.blocked && !this.closed && this.head < this.queue.length) {
      const w = this.queue[this.head++] as Waiting<F>;
      if (w.stale) continue;
      if (w === this.waitingInterim) this.waitingInterim = null;
      this.stats.queued--;
      this.stats.queuedBytes -= w.frame.length;
      this.writeNow(w.frame as F);
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
