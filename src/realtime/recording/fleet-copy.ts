/**
 * The copy of one live recording the rest of the fleet sees (src/realtime/live): its
 * live_recordings row (holder, lease, resume token hash, the recording's snapshot) and its
 * audio in the blob store as segments, each stored with the snapshot. Another process continues
 * the recording from it (a resume there) or finishes it (this process died). Without
 * `live` wiring the recording belongs to this process only and every method does nothing.
 */
import type { Logger } from 'pino';
import type { Principal } from '../../platform/auth/types.js';
import type { BlobStore } from '../../storage/types.js';
import { SegmentWriter, segmentPrefix } from '../live/segments.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import { type EndState, type LiveRecordingStore, type LiveRow, tokenHash } from '../live/store.js';

export interface LiveDeps {
  store: LiveRecordingStore;
  /** This realtime process (the holder named in live_recordings). */
  instanceId: string;
  /** PCM bytes per audio segment in the blob store. */
  segmentBytes: number;
  leaseMs: number;
}

export interface FleetCopyDeps {
  live?: LiveDeps;
  blobs: BlobStore;
  logger: Logger;
  /** The recording's state now (saved with the row and each segment). */
  snapshot(): RecordingSnapshot;
  /** Another process took the row over (this one stalled past its lease and the grace): called once. */
  lost(): void;
}

export class FleetCopy {
  /** Audio to the blob store as it arrives; null without `live`, and once closed. */
  private segments: SegmentWriter | null = null;

  constructor(private readonly d: FleetCopyDeps) {}

  /** Wired, and the segments are being written: the recording can be handed to another process. */
  get canPark(): boolean {
    return this.d.live !== undefined && this.segments !== null;
  }

  /** A new recording: its row (held by this process) and its first segments. */
  async insert(taskId: string, principal: Principal, usageId: string, resumeToken: string | null): Promise<void> {
    const live = this.d.live;
    if (!live) return;
    await live.store.insert({
      task_id: taskId,
      account_id: principal.accountId,
      key_id: principal.keyId,
      usage_id: usageId,
      token_hash: resumeToken ? tokenHash(resumeToken) : null,
      state: 'live',
      instance_id: live.instanceId,
      lease_until: new Date(Date.now() + live.leaseMs).toISOString(),
      snapshot: JSON.stringify(this.d.snapshot()),
    });
    this.segments = this.writer(live, taskId, 0, 0);
  }

  /** A recording this process claimed: segments go on after the `bytes` its row already holds. */
  resume(row: LiveRow, bytes: number): void {
    const live = this.d.live;
    if (!live) throw new Error('live recordings are not wired');
    this.segments = this.writer(live, row.task_id, row.segments, bytes);
  }

  private writer(live: LiveDeps, taskId: string, segments: number, bytes: number): SegmentWriter {
    const deps = { blobs: this.d.blobs, store: live.store, instanceId: live.instanceId, logger: this.d.logger };
    return new SegmentWriter(
      deps,
      taskId,
      live.segmentBytes,
      () => JSON.stringify(this.d.snapshot()),
      segments,
      bytes,
      () => this.d.lost(),
    );
  }

  append(pcm: Buffer): void {
    this.segments?.append(pcm);
  }

  /**
   * Stores the last audio and the snapshot, then parks the row for `graceMs` (another process
   * may claim it). False: some audio could not be stored, or the row is no longer this
   * process's; the segments are closed either way.
   */
  async park(taskId: string, graceMs: number): Promise<boolean> {
    const live = this.d.live;
    const segments = this.segments;
    if (!live || !segments) return false;
    await segments.flush();
    if (segments.unstored > 0) await segments.flush(); // one more try after a failed PUT
    if (segments.unstored > 0) return false;
    await this.close();
    return live.store.park(taskId, live.instanceId, graceMs);
  }

  /** No more segments; what is queued is still written. */
  async close(): Promise<void> {
    const segments = this.segments;
    this.segments = null;
    await segments?.close();
  }

  /** The recording is finalized: its row says how it ended, its segments go. */
  async end(taskId: string, state: EndState): Promise<void> {
    if (!this.d.live || !taskId) return;
    try {
      await this.d.live.store.end(taskId, state);
      await this.d.blobs.deletePrefix(segmentPrefix(taskId));
    } catch (err) {
      this.d.logger.error({ err, task_id: taskId }, 'live recording row not ended');
    }
  }
}
