import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeStream, WebmStreamDecoder } from '../../src/engines/audio/stream.js';
import type { EngineError } from '../../src/engines/errors.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';

const ff = { ffmpegPath: 'ffmpeg' };

/** ffmpeg processes started by this test process (other programs on the machine may run ffmpeg too). */
function ffmpegCount(): number {
  try {
    return (
      Number(
        execFileSync('pgrep', ['-c', '-P', String(process.pid), '-x', 'ffmpeg'])
          .toString()
          .trim(),
      ) || 0
    );
  } catch {
    return 0;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 150));

describe.skipIf(!haveSharedAudio())('streaming decoders', () => {
  it('decodeStream yields bounded chunks that add up to the whole file, from a path or a stream', async () => {
    let samples = 0;
    let biggest = 0;
    for await (const c of decodeStream(JFK, { ...ff, chunkSamples: 8000 })) {
      samples += c.length;
      biggest = Math.max(biggest, c.length);
    }
    expect(biggest).toBe(8000);
    expect(Math.abs(samples / 16 - 11_000)).toBeLessThan(50);
    let fromStream = 0;
    for await (const c of decodeStream(createReadStream(convert(JFK, 'mp3')), ff)) fromStream += c.length;
    expect(Math.abs(fromStream / 16 - 11_000)).toBeLessThan(100);
  });

  it('leaving early, corrupt and empty input end ffmpeg with a clear code', async () => {
    const before = ffmpegCount();
    for await (const _ of decodeStream(JFK, ff)) break;
    const bad = async (input: string) => {
      for await (const _ of decodeStream(input, ff));
    };
    const garbage = convert(JFK, 'wav');
    execFileSync('sh', [
      '-c',
      `head -c 30 ${garbage} > ${garbage}.cut && printf 'not audio at all' > ${garbage}.txt && : > ${garbage}.empty`,
    ]);
    await expect(bad(`${garbage}.txt`)).rejects.toMatchObject({
      code: 'audio_decode_failed',
    });
    await expect(bad(`${garbage}.cut`)).rejects.toMatchObject({
      code: expect.stringMatching(/^audio_(decode_failed|invalid_format)$/),
    });
    await expect(bad(`${garbage}.empty`)).rejects.toMatchObject({
      code: expect.stringMatching(/^audio_(decode_failed|invalid_format)$/),
    });
    const ac = new AbortController();
    const run = (async () => {
      for await (const _ of decodeStream(JFK, {
        ...ff,
        signal: ac.signal,
        chunkSamples: 160,
      }))
        await new Promise((r) => setTimeout(r, 5));
    })();
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'audio_process_failed' });
    await settle();
    expect(ffmpegCount()).toBe(0);
    expect(before).toBe(0);
  });

  it('WebM chunks (MediaRecorder-sized) decode as they arrive; a corrupt container errors and a fresh one recovers', async () => {
    const webm = readFileSync(convert(JFK, 'webm', ['-c:a', 'libopus', '-b:a', '32k']));
    const chunks: Buffer[] = [];
    for (let i = 0; i < webm.length; i += 2000) chunks.push(webm.subarray(i, i + 2000));
    let samples = 0;
    let beforeEnd = 0;
    const errors: EngineError[] = [];
    const dec = new WebmStreamDecoder({
      ...ff,
      onPcm: (p) => (samples += p.length),
      onError: (e) => errors.push(e),
    });
    for (const c of chunks) {
      dec.write(c);
      await new Promise((r) => setTimeout(r, 2));
    }
    // PCM comes out while the container is still open (no end of input yet): all but the
    // last packets' worth arrives without end().
    for (let i = 0; i < 40 && samples / 16 < 10_500; i++) await settle();
    beforeEnd = samples;
    expect(beforeEnd / 16).toBeGreaterThan(10_500);
    // A broken container: EBML magic, then no valid header. (Garbage inside a valid container
    // is skipped by the demuxer, which resynchronizes on the next cluster.)
    dec.write(Buffer.concat([webm.subarray(0, 4), Buffer.alloc(20_000, 0xff)]));
    for (let i = 0; i < 40 && errors.length === 0; i++) await settle();
    expect(errors[0]?.code).toBe('audio_decode_failed');
    // A fresh container starts over.
    const afterError = samples;
    for (const c of chunks) dec.write(c);
    await dec.end();
    expect((samples - afterError) / 16).toBeGreaterThan(10_500);
    await settle();
    expect(ffmpegCount()).toBe(0);
  });
  it('the live WebM decoder gives the same PCM as decoding the same WebM as a file, from the first sample', async () => {
    const path = convert(JFK, 'webm', ['-c:a', 'libopus', '-b:a', '32k']);
    const asFile: number[] = [];
    for await (const c of decodeStream(path, ff)) for (const x of c) asFile.push(Math.round(x * 32768));
    const live: number[] = [];
    const dec = new WebmStreamDecoder({ ...ff, onPcm: (p) => live.push(...p), onError: (e) => live.push(Number.NaN, e.code.length) });
    const webm = readFileSync(path);
    for (let i = 0; i < webm.length; i += 1000) dec.write(webm.subarray(i, i + 1000));
    await dec.end();
    // Low-latency input flags must not drop the first Opus frame (20 ms): nothing shifts.
    expect(live.length).toBe(asFile.length);
    let differing = 0;
    for (let i = 0; i < live.length; i++) if (Math.abs(live[i]! - asFile[i]!) > 1) differing++;
    expect(differing).toBe(0);
  });
});
