import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import { synthesisStream } from '../../src/engines/tts-stream.js';
import type { Synthesizer } from '../../src/engines/types.js';

const made = await espeakFactory.create({ config: { engines: { ffmpegPath: 'ffmpeg' } } } as never);
const tts = 'unavailable' in made ? null : (made as Synthesizer);
const dir = mkdtempSync(join(tmpdir(), 'parley-tts-'));

function probeDurationS(mp3: Buffer, name: string): number {
  const path = join(dir, name);
  writeFileSync(path, mp3);
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', path], {
    encoding: 'utf8',
  });
  const j = JSON.parse(out) as { format: { duration: string }; streams: Array<{ codec_name: string }> };
  expect(j.streams[0]?.codec_name).toBe('mp3');
  return Number(j.format.duration);
}

/** Median F0 of the loud frames by autocorrelation (80-400 Hz). */
function medianPitchHz(s: Int16Array, rate: number): number {
  const frame = Math.round(rate * 0.04);
  const f0: number[] = [];
  for (let at = 0; at + frame < s.length; at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += s[i]! * s[i]!;
    if (energy / frame < 1e6) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = Math.round(rate / 400); lag <= Math.round(rate / 80); lag++) {
      let c = 0;
      for (let i = at; i < at + frame - lag; i++) c += s[i]! * s[i + lag]!;
      if (c > best) [best, bestLag] = [c, lag];
    }
    if (bestLag) f0.push(rate / bestLag);
  }
  f0.sort((a, b) => a - b);
  return f0[Math.floor(f0.length / 2)] ?? 0;
}

describe.skipIf(!tts)('eSpeak NG TTS', () => {
  it('lists a male and a female voice per language with one default', () => {
    const voices = tts!.voices('en-US');
    expect(voices.map((v) => v.gender)).toEqual(expect.arrayContaining(['Male', 'Female']));
    expect(voices.filter((v) => v.is_default)).toHaveLength(1);
    expect(voices[0]).toMatchObject({ voice_name: 'espeak-en-US-female-1', gender: 'Female', is_default: true, language: 'en-US' });
    expect(tts!.voices('zh-TW').length).toBeGreaterThan(0);
    expect(tts!.voices('xx')).toEqual([]);
  });

  it('synthesizes MP3 that ffmpeg decodes, with boundaries that increase and index the text', async () => {
    const text = 'Hello world, this is Parley. Café prices rose again!';
    const r = await tts!.synthesize(text, { language: 'en-US' });
    expect(probeDurationS(r.mp3, 'en.mp3')).toBeGreaterThan(1);
    expect(r.durationMs).toBeGreaterThan(1000);
    expect(r.boundaries.map((b) => b.text)).toEqual(['Hello', 'world', 'this', 'is', 'Parley', 'Café', 'prices', 'rose', 'again']);
    for (const [i, b] of r.boundaries.entries()) {
      expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
      expect(b.duration_ms).toBeGreaterThan(0);
      if (i > 0) expect(b.offset_ms).toBeGreaterThan(r.boundaries[i - 1]!.offset_ms);
    }
    expect(r.boundaries.at(-1)!.offset_ms).toBeLessThan(r.durationMs);
  });

  it('Chinese boundaries index the Han characters', async () => {
    const text = '你好，世界。';
    const r = await tts!.synthesize(text, { language: 'zh-CN' });
    expect(probeDurationS(r.mp3, 'zh.mp3')).toBeGreaterThan(0);
    expect(r.boundaries.map((b) => b.text)).toEqual(['你', '好', '世', '界']);
    expect(r.boundaries.map((b) => b.text_offset)).toEqual([0, 1, 3, 4]);
  });

  it('long text is rendered in pieces with boundaries still increasing and indexing the whole text', async () => {
    const text = Array.from({ length: 14 }, (_, i) => `Sentence number ${i + 1} tells the listener something new about the plan.`).join(
      ' ',
    );
    expect(text.length).toBeGreaterThan(800);
    const r = await tts!.synthesize(text, { language: 'en-GB' });
    expect(r.boundaries.length).toBe(14 * 11);
    for (const [i, b] of r.boundaries.entries()) {
      expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
      if (i > 0) expect(b.offset_ms).toBeGreaterThan(r.boundaries[i - 1]!.offset_ms);
    }
    expect(probeDurationS(r.mp3, 'long.mp3') * 1000).toBeGreaterThan(r.boundaries.at(-1)!.offset_ms);
  });

  it('Traditional Chinese (zh-TW) is spoken with the Mandarin voice', async () => {
    const text = '請在星期五之前寄給我。';
    const r = await tts!.synthesize(text, { language: 'zh-TW', voice: 'espeak-zh-TW-male-1' });
    expect(probeDurationS(r.mp3, 'tw.mp3')).toBeGreaterThan(0.5);
    expect(r.boundaries.map((b) => b.text).join('')).toBe('請在星期五之前寄給我');
  });

  it('male and female voices sound different', async () => {
    const f = await tts!.synthesize('Good morning everyone.', { language: 'en-US', voice: 'espeak-en-US-female-1' });
    const m = await tts!.synthesize('Good morning everyone.', { language: 'en-US', voice: 'espeak-en-US-male-1' });
    expect(Buffer.compare(f.mp3, m.mp3)).not.toBe(0);
    const pitch = (mp3: Buffer, name: string) => {
      const path = join(dir, name);
      writeFileSync(path, mp3);
      const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1']);
      const s = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
      return medianPitchHz(s, 16000);
    };
    expect(pitch(f.mp3, 'f.mp3')).toBeGreaterThan(pitch(m.mp3, 'm.mp3'));
  });

  it('speaking rate is clamped to 0.5..2.0 and changes the duration', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const slow = await tts!.synthesize(text, { language: 'en-US', speakingRate: 0.1 });
    const slowest = await tts!.synthesize(text, { language: 'en-US', speakingRate: 0.5 });
    const fast = await tts!.synthesize(text, { language: 'en-US', speakingRate: 2 });
    expect(slow.durationMs).toBe(slowest.durationMs);
    expect(fast.durationMs).toBeLessThan(slowest.durationMs / 2);
  });

  it('streams one playable MP3 per sentence, with the boundaries of the whole-buffer call', async () => {
    const text = 'First sentence here. Second one follows!  And a third?';
    const whole = await tts!.synthesize(text, { language: 'en-US' });
    const chunks = [];
    for await (const c of synthesisStream(tts!, text, { language: 'en-US' })) chunks.push(c);
    expect(chunks.map((c) => c.text.trim())).toEqual(['First sentence here.', 'Second one follows!', 'And a third?']);
    expect(chunks.map((c) => c.textOffset)).toEqual([0, 21, 42]);
    for (const [i, c] of chunks.entries()) {
      expect(probeDurationS(c.mp3, `s${i}.mp3`) * 1000).toBeGreaterThan(c.durationMs - 100);
      if (i > 0) expect(c.startMs).toBe(chunks[i - 1]!.startMs + chunks[i - 1]!.durationMs);
      for (const b of c.boundaries) {
        expect(text.slice(b.text_offset, b.text_offset + b.word_length)).toBe(b.text);
        expect(b.offset_ms).toBeGreaterThanOrEqual(c.startMs);
        expect(b.offset_ms).toBeLessThan(c.startMs + c.durationMs);
      }
    }
    expect(chunks.flatMap((c) => c.boundaries.map((b) => b.text))).toEqual(whole.boundaries.map((b) => b.text));
    // Sentences rendered alone get eSpeak's own start and end pauses: close to the whole, not equal.
    const streamedMs = chunks.at(-1)!.startMs + chunks.at(-1)!.durationMs;
    expect(streamedMs).toBeGreaterThan(whole.durationMs * 0.75);
    expect(streamedMs).toBeLessThan(whole.durationMs * 1.25);
  });

  it('a stream checks the voice before the first sentence and stops when aborted', async () => {
    const consume = async (text: string, o: Parameters<Synthesizer['synthesize']>[1]) => {
      const out = [];
      for await (const c of synthesisStream(tts!, text, o)) out.push(c);
      return out;
    };
    await expect(consume('', { language: 'en-US', voice: 'nope' })).rejects.toMatchObject({ code: 'tts_voice_not_found' });
    expect(await consume('   ', { language: 'en-US' })).toEqual([]);
    const ac = new AbortController();
    const got = [];
    await expect(
      (async () => {
        for await (const c of synthesisStream(tts!, 'One. Two. Three. Four.', { language: 'en-US', signal: ac.signal })) {
          got.push(c);
          ac.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(got.length).toBeLessThan(4);
  });

  it('an unknown voice or language is a clear error', async () => {
    await expect(tts!.synthesize('hi', { language: 'en-US', voice: 'nope' })).rejects.toMatchObject({ code: 'tts_voice_not_found' });
    await expect(tts!.synthesize('hi', { language: 'xx' })).rejects.toMatchObject({ code: 'tts_invalid_language' });
  });
});
