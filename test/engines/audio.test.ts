import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeToPcm, encodeFile, encodePcmToMp3, measureDurationMs } from '../../src/engines/audio/ffmpeg.js';
import { detectAudioFormat } from '../../src/engines/audio/format.js';
import { convert, haveSharedAudio, JFK, STEREO } from '../support/audio.js';

const ff = { ffmpegPath: 'ffmpeg' };
const head = (p: string) => readFileSync(p).subarray(0, 4096);

/** ffmpeg processes started by this test process (other agents' ffmpeg runs do not count). */
function ffmpegChildren(): number {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-x', 'ffmpeg'])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0; // pgrep exits 1 when nothing matches
  }
}

describe.skipIf(!haveSharedAudio())('audio: formats, decoding, encoding', () => {
  it('detects the container from content, not from the name', () => {
    expect(detectAudioFormat(head(JFK))).toBe('flac');
    expect(detectAudioFormat(head(STEREO))).toBe('wav');
    expect(detectAudioFormat(head(convert(JFK, 'mp3')))).toBe('mp3');
    expect(detectAudioFormat(head(convert(JFK, 'mp3', ['-write_id3v2', '0'])))).toBe('mp3');
    expect(detectAudioFormat(head(convert(JFK, 'm4a')))).toBe('m4a');
    expect(detectAudioFormat(head(convert(JFK, 'webm', ['-c:a', 'libopus'])))).toBe('webm');
    expect(detectAudioFormat(head(convert(JFK, 'ogg', ['-c:a', 'libopus'])))).toBe('ogg');
    // A FLAC renamed to .mp3 is still FLAC.
    const lying = join(mkdtempSync(join(tmpdir(), 'parley-')), 'speech.mp3');
    copyFileSync(JFK, lying);
    expect(detectAudioFormat(head(lying))).toBe('flac');
    expect(detectAudioFormat(Buffer.from('hello, this is not audio at all'))).toBe('unknown');
    expect(detectAudioFormat(Buffer.alloc(0))).toBe('unknown');
  });

  it('decodes to 16 kHz mono with the right duration, and single channels of a stereo file', async () => {
    const pcm = await decodeToPcm(JFK, ff);
    expect(pcm.sampleRate).toBe(16000);
    expect(pcm.samples.length / 16000).toBeCloseTo(11, 0);
    expect((await measureDurationMs(JFK, ff)).durationMs).toBeGreaterThan(10_900);
    const left = await decodeToPcm(STEREO, { ...ff, channel: 0 });
    const right = await decodeToPcm(STEREO, { ...ff, channel: 1 });
    expect(left.samples.length).toBe(right.samples.length);
    expect(left.samples.length / 16000).toBeCloseTo(5, 0);
    // Different speakers on each channel: the signals differ.
    let diff = 0;
    for (let i = 0; i < left.samples.length; i += 97) diff += Math.abs(left.samples[i]! - right.samples[i]!);
    expect(diff).toBeGreaterThan(1);
  });

  it('encodes MP3 and M4A that decode back with the same duration', async () => {
    const pcm = await decodeToPcm(JFK, ff);
    const mp3 = await encodePcmToMp3(pcm, ff);
    expect(detectAudioFormat(mp3)).toBe('mp3');
    const dir = mkdtempSync(join(tmpdir(), 'parley-enc-'));
    writeFileSync(join(dir, 'a.mp3'), mp3);
    expect(Math.abs((await measureDurationMs(join(dir, 'a.mp3'), ff)).durationMs - 11_000)).toBeLessThan(150);
    await encodeFile({ pcm }, join(dir, 'a.m4a'), 'm4a', ff);
    expect(detectAudioFormat(head(join(dir, 'a.m4a')))).toBe('m4a');
    expect(Math.abs((await measureDurationMs(join(dir, 'a.m4a'), ff)).durationMs - 11_000)).toBeLessThan(150);
  });

  it('corrupt, truncated and empty input fail with a clear code and leave no process behind', async () => {
    const before = ffmpegChildren();
    await expect(decodeToPcm(Buffer.from('definitely not audio'.repeat(100)), ff)).rejects.toMatchObject({ code: 'audio_decode_failed' });
    await expect(decodeToPcm(Buffer.alloc(0), ff)).rejects.toMatchObject({
      code: expect.stringMatching(/^audio_(decode_failed|invalid_format)$/),
    });
    const truncated = readFileSync(convert(JFK, 'wav')).subarray(0, 30);
    await expect(decodeToPcm(truncated, ff)).rejects.toMatchObject({
      code: expect.stringMatching(/^audio_(decode_failed|invalid_format)$/),
    });
    await expect(decodeToPcm(JFK, { ...ff, timeoutMs: 1 })).rejects.toMatchObject({ code: 'audio_process_failed' });
    // Killed children may take a moment to be reaped on a loaded machine.
    for (let i = 0; i < 20 && ffmpegChildren() > before; i++) await new Promise((r) => setTimeout(r, 100));
    expect(ffmpegChildren()).toBeLessThanOrEqual(before);
  });
});
