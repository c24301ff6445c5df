/**
 * The long-running MP3 encoder of the eSpeak engine: sentences cut out of one ffmpeg stream
 * are each a playable MP3 holding exactly their own audio (what a one-shot encode gives),
 * concurrent requests come back in order, and a dead process is replaced.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamingMp3Encoder } from '../../src/engines/builtin/espeak-mp3.js';

const R = 22050;
const tone = (hz: number, seconds: number) => {
  const n = Math.round(R * seconds);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / R)), i * 2);
  return b;
};

/** Decodes a standalone MP3: where the loud part starts and how long it lasts (ms), and its pitch. */
function heard(mp3: Buffer) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-mp3-'));
  try {
    writeFileSync(join(dir, 'a.mp3'), mp3);
    const pcm = execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      join(dir, 'a.mp3'),
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(R),
      'pipe:1',
    ]);
    const n = pcm.length / 2;
    let first = -1;
    let last = -1;
    let crossings = 0;
    for (let i = 1; i < n; i++) {
      const v = pcm.readInt16LE(i * 2);
      if (Math.abs(v) > 1500) {
        if (first < 0) first = i;
        last = i;
      }
      if (first >= 0 && pcm.readInt16LE((i - 1) * 2) < 0 && v >= 0) crossings++;
    }
    return { fromMs: (first / R) * 1000, loudMs: ((last - first) / R) * 1000, hz: crossings / ((last - first) / R) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('StreamingMp3Encoder (one ffmpeg for every sentence)', () => {
  let enc: StreamingMp3Encoder | null = null;
  afterEach(() => enc?.close());

  it('each sentence is a standalone MP3 with all of its audio and nothing of its neighbours', async () => {
    enc = new StreamingMp3Encoder('ffmpeg', R);
    const sentences: Array<[number, number]> = [
      [440, 1],
      [880, 0.5],
      [220, 0.3],
      [660, 0.05],
    ];
    for (const [hz, seconds] of sentences) {
      const h = heard(await enc.encode(tone(hz, seconds)));
      expect(h.fromMs).toBeGreaterThan(45); // LAME's encoder and decoder delay (1105 samples), as a one-shot encode
      expect(h.fromMs).toBeLessThan(55);
      expect(Math.abs(h.loudMs - seconds * 1000)).toBeLessThan(5);
      // Zero crossings of decoded MP3 are a rough pitch; neighbours differ by 25% or more.
      if (seconds >= 0.3) expect(Math.abs(h.hz - hz) / hz).toBeLessThan(0.15);
    }
  }, 30_000);

  it('concurrent requests are answered in order, each with its own audio', async () => {
    enc = new StreamingMp3Encoder('ffmpeg', R);
    const hz = [300, 500, 700, 900, 1100];
    const out = await Promise.all(hz.map((f) => enc!.encode(tone(f, 0.4))));
    for (const [i, mp3] of out.entries()) expect(Math.abs(heard(mp3).hz - hz[i]!) / hz[i]!).toBeLessThan(0.15);
  }, 30_000);

  it('a dead ffmpeg fails the sentence in progress only; the next one starts a new process', async () => {
    enc = new StreamingMp3Encoder('ffmpeg', R);
    await enc.encode(tone(440, 0.2));
    const child = (enc as unknown as { child: { kill(s: string): void } }).child;
    const during = enc.encode(tone(440, 3));
    child.kill('SIGKILL');
    await expect(during).rejects.toMatchObject({ code: 'tts_sample_generation_failed' });
    expect(Math.abs(heard(await enc.encode(tone(550, 0.5))).loudMs - 500)).toBeLessThan(5);
  }, 30_000);

  it('an aborted request rejects and the encoder goes on', async () => {
    enc = new StreamingMp3Encoder('ffmpeg', R);
    const ac = new AbortController();
    ac.abort();
    await expect(enc.encode(tone(440, 0.2), ac.signal)).rejects.toMatchObject({ code: 'tts_sample_generation_failed' });
    expect(Math.abs(heard(await enc.encode(tone(440, 0.5))).loudMs - 500)).toBeLessThan(5);
  }, 30_000);
});
