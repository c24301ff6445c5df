/**
 * The audio of a running recording in the blob store, as it arrives: raw 16 kHz s16le mono
 * segments `live/<task>/<n>.pcm` (n from 000001), one every PARLEY_WS_SEGMENT_SECONDS of audio
 * (and at least that often by the clock), each followed by the row's segment count and the
 * recording's snapshot (store.ts). Another process rebuilds the audio from them: to continue
 * the recording (a resume there) or to finish it (its process died).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { BlobStore } from '../../storage/types.js';
import type { LiveRecordingStore } from './store.js';

export const segmentPrefix = (taskId: string) => `live/${taskId}/`;
export const segmentKey = (taskId: string, n: number) => `${segmentPrefix(taskId)}${String(n).padStart(6, '0')}.pcm`;

export interface SegmentDeps {
  blobs: BlobStore;
  store: LiveRecordingStore;
  instanceId: string;
  logger: Logger;
}

export class SegmentWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private lost = false;

  constructor(
    private readonly d: SegmentDeps,
    private readonly taskId: string,
    private readonly segmentBytes: number,
    /** The recording's state as JSON (snapshot.ts), saved with each segment. */
    private readonly snapshot: () => string,
    /** Segments and bytes already stored (a recording continued here). */
    private segments = 0,
    private storedBytes = 0,
    /** The row is no longer this process's (another took the recording over): called once. */
    private readonly onLost: () => void = () => {},
  ) {
    // A slow talker's audio still reaches the store: at least one segment per period.
    this.timer = setInterval(
      () => {
        if (this.pendingBytes > 0) void this.flush();
      },
      Math.max(1000, segmentBytes / 32),
    );
    this.timer.unref();
  }

  get stored(): { segments: number; bytes: number } {
    return { segments: this.segments, bytes: this.storedBytes };
  }

  /** Bytes received but not (yet) in the store. */
  get unstored(): number {
    return this.pendingBytes;
  }

  append(pcm: Buffer): void {
    this.pending.push(pcm);
    this.pendingBytes += pcm.length;
    if (this.pendingBytes >= this.segmentBytes) void this.flush();
  }

  /** Stores what is pending as one segment (none when nothing is), then the snapshot; resolves when stored. */
  flush(): Promise<void> {
    const data = this.pending.length ? Buffer.concat(this.pending) : null;
    this.pending = [];
    this.pendingBytes = 0;
    this.chain = this.chain.then(() => this.store(data));
    return this.chain;
  }

  /** No more segments (the recording ends or moves); what is queued is still written. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.chain;
  }

  private async store(data: Buffer | null): Promise<void> {
    try {
      if (data) {
        try {
          await this.d.blobs.put(segmentKey(this.taskId, this.segments + 1), data);
        } catch (err) {
          // Kept for the next segment (ahead of what arrived since), so the stored audio has no hole.
          this.pending.unshift(data);
          this.pendingBytes += data.length;
          throw err;
        }
        this.segments++;
        this.storedBytes += data.length;
      }
      const held = await this.d.store.saveSegment(this.taskId, this.d.instanceId, this.segments, this.storedBytes, this.snapshot());
      if (!held && !this.lost) {
        this.lost = true;
        clearInterval(this.timer);
        this.d.logger.warn({ task_id: this.taskId }, 'live recording row no longer held by this process: let go');
        this.onLost();
      }
    } catch (err) {
      // The local file still has the audio: a normal finish loses nothing; the next flush tries again.
      this.d.logger.error({ err, task_id: this.taskId }, 'live audio segment not stored');
    }
  }
}

/** Appends the stored segments of `taskId`, in order, to `path` (after `headerBytes` already there); returns the PCM bytes. */
export async function downloadSegments(blobs: BlobStore, taskId: string, out: WriteStream | string): Promise<number> {
  const file = typeof out === 'string' ? createWriteStream(out, { flags: 'a' }) : out;
  let bytes = 0;
  for (const key of await blobs.list(segmentPrefix(taskId))) {
    if (!key.endsWith('.pcm')) continue;
    const stream = await blobs.get(key);
    for await (const chunk of stream) {
      const b = chunk as Buffer;
      bytes += b.length;
      if (!file.write(b)) await new Promise<void>((r) => file.once('drain', () => r()));
    }
  }
  file.end();
  await finished(file);
  return bytes;
}
