/**
 * The tape of one live recording: its audio on this machine as it arrives, a 16 kHz s16le mono
 * WAV file `<task>.wav` in the process's temp folder (its header says 0 bytes until sealed),
 * and beside it the crash sidecar `<task>.json` (task, usage row, summary asked for). A process
 * that dies leaves both, and recover.ts finishes the recording from them. The tape has no share
 * in the fleet snapshot: another process gets the audio from the blob store's segments
 * (fleet-copy.ts), and a tape continued here starts from them.
 */
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../../storage/types.js';
import { downloadSegments } from '../live/segments.js';
import type { RecordingSidecar } from '../recover.js';
import { wavHeader } from '../wav.js';

const BYTES_PER_MS = 32; // 16 kHz * 2 bytes / 1000
const HEADER_BYTES = 44;

export class Tape {
  private fd = -1;
  private path = '';
  private bytes = 0;

  constructor(private readonly dir: string) {}

  /** True from open()/resume() until sealed or dropped: audio is recorded only then. */
  get recording(): boolean {
    return this.fd >= 0;
  }

  /** The WAV file ('' before open()/resume()). */
  get wavPath(): string {
    return this.path;
  }

  get pcmBytes(): number {
    return this.bytes;
  }

  get durationMs(): number {
    return Math.round(this.bytes / BYTES_PER_MS);
  }

  private get sidecarPath(): string {
    return this.path.replace(/\.wav$/, '.json');
  }

  /** A new, empty recording of `taskId`. */
  open(taskId: string): void {
    mkdirSync(this.dir, { recursive: true });
    this.path = join(this.dir, `${taskId}.wav`);
    this.fd = openSync(this.path, 'w');
    writeSync(this.fd, wavHeader(0));
  }

  /** A recording continued here: the audio so far from its segments in the blob store. */
  async resume(taskId: string, blobs: BlobStore): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    this.path = join(this.dir, `${taskId}.wav`);
    writeFileSync(this.path, wavHeader(0));
    const bytes = await downloadSegments(blobs, taskId, this.path);
    this.bytes = bytes - (bytes % 2);
    this.fd = openSync(this.path, 'r+');
  }

  /** Appends whole samples (s16le) after the audio so far. */
  append(pcm: Buffer): void {
    writeSync(this.fd, pcm, 0, pcm.length, HEADER_BYTES + this.bytes);
    this.bytes += pcm.length;
  }

  /** What recovery needs if this process dies (recover.ts); rewritten whenever it changes. */
  writeSidecar(sidecar: RecordingSidecar): void {
    writeFileSync(this.sidecarPath, JSON.stringify(sidecar));
  }

  /** No more audio: the header gets the real size, the file is closed and stays for finalizing; returns its path. */
  seal(): string {
    writeSync(this.fd, wavHeader(this.bytes), 0, HEADER_BYTES, 0);
    closeSync(this.fd);
    this.fd = -1;
    return this.path;
  }

  /** The WAV file and its sidecar go (finalized, handed over, or never begun). */
  drop(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    if (!this.path) return;
    rmSync(this.path, { force: true });
    rmSync(this.sidecarPath, { force: true });
  }

  /** The audio so far, in order, as samples (e.g. for a live diarizer that must hear it again). */
  async replay(each: (pcm: Int16Array) => void): Promise<void> {
    let carry: Buffer | null = null;
    for await (const chunk of createReadStream(this.path, { start: HEADER_BYTES, end: HEADER_BYTES + this.bytes - 1 })) {
      const b: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      const even = b.length - (b.length % 2);
      carry = even < b.length ? b.subarray(even) : null;
      const pcm = new Int16Array(even / 2);
      for (let i = 0; i < pcm.length; i++) pcm[i] = b.readInt16LE(i * 2);
      each(pcm);
    }
  }
}
