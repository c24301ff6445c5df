/**
 * The tape of a live recording (src/realtime/recording/tape.ts) on a real folder: what a
 * process that dies leaves for recover.ts (a WAV whose data grows while its header still says
 * 0, and the sidecar), what finalizing gets (the header with the real size), and a recording
 * continued on another process (its audio rebuilt from the blob store's segments, a stray odd
 * byte dropped, new audio appended after it, replayed in order for the live diarizer).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentKey } from '../../../src/realtime/live/segments.js';
import { Tape } from '../../../src/realtime/recording/tape.js';
import { LocalDiskBlobStore } from '../../../src/storage/local-disk.js';

const dirs: string[] = [];
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'parley-tape-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function samples(from: number, count: number): Buffer {
  const b = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) b.writeInt16LE(from + i, i * 2);
  return b;
}

/** What ffprobe reads of a WAV file (sample rate, channels, duration in samples). */
function probe(path: string): { rate: string; channels: number; samples: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', path], { encoding: 'utf8' });
  const s = JSON.parse(out).streams[0];
  return { rate: s.sample_rate, channels: s.channels, samples: Number(s.duration_ts) };
}

describe('the tape of a live recording', () => {
  it('keeps the audio and the sidecar while recording; sealed, the WAV says its size; dropped, both are gone', () => {
    const dir = folder();
    const tape = new Tape(join(dir, 'instance'));
    expect(tape.recording).toBe(false);
    tape.open('task-1');
    tape.writeSidecar({ task_id: 'task-1', usage_id: 'usage-1', summary: null });
    tape.append(samples(0, 16_000));
    tape.append(samples(16_000, 8_000));
    expect(tape.recording).toBe(true);
    expect(tape.durationMs).toBe(1500);
    const wav = join(dir, 'instance', 'task-1.wav');
    const sidecar = join(dir, 'instance', 'task-1.json');
    // A crash now: the data is all there, the header still says 0 (recover.ts goes by the file length).
    const raw = readFileSync(wav);
    expect(raw.length).toBe(44 + 48_000);
    expect(raw.readUInt32LE(40)).toBe(0);
    expect(JSON.parse(readFileSync(sidecar, 'utf8'))).toEqual({ task_id: 'task-1', usage_id: 'usage-1', summary: null });

    expect(tape.seal()).toBe(wav);
    expect(tape.recording).toBe(false);
    expect(probe(wav)).toEqual({ rate: '16000', channels: 1, samples: 24_000 });
    expect(
      readFileSync(wav)
        .subarray(44)
        .equals(Buffer.concat([samples(0, 16_000), samples(16_000, 8_000)])),
    ).toBe(true);
    tape.drop();
    expect(existsSync(wav)).toBe(false);
    expect(existsSync(sidecar)).toBe(false);
  });

  it('continues from the segments in the blob store: new audio after them, replayed in order', async () => {
    const dir = folder();
    const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
    await blobs.put(segmentKey('task-2', 1), samples(0, 1000));
    // A segment cut inside a sample: the odd byte is not audio.
    await blobs.put(segmentKey('task-2', 2), Buffer.concat([samples(1000, 500), Buffer.from([7])]));
    const tape = new Tape(join(dir, 'other-instance'));
    await tape.resume('task-2', blobs);
    expect(tape.pcmBytes).toBe(3000);
    tape.append(samples(1500, 100));
    const heard: number[] = [];
    await tape.replay((pcm) => heard.push(...pcm));
    expect(heard).toEqual(Array.from({ length: 1600 }, (_, i) => i));
    expect(probe(tape.seal()).samples).toBe(1600);
  });
});
