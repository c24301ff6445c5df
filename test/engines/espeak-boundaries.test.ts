/**
 * eSpeak NG keeps global state: a second engine built in the same process before any synthesis
 * (a second registry) once made the next synthesis lose its first word's boundary (session 16).
 * This file runs in a process of its own, so the two engines below are the process's first.
 */
import { describe, expect, it } from 'vitest';
import { espeakFactory } from '../../src/engines/builtin/espeak.js';
import type { Synthesizer } from '../../src/engines/types.js';

const ctx = { config: { engines: { ffmpegPath: 'ffmpeg' } } } as never;
const first = await espeakFactory.create(ctx);
const second = await espeakFactory.create(ctx);

describe.skipIf('unavailable' in first)('eSpeak NG boundaries with two engines in one process', () => {
  it("the second engine's first synthesis has every word's boundary, the first word's too", async () => {
    const text = 'Hello world, this is Parley.';
    const r = await (second as Synthesizer).synthesize(text, { language: 'en-US' });
    expect(r.boundaries.map((b) => b.text)).toEqual(['Hello', 'world', 'this', 'is', 'Parley']);
    expect(r.boundaries[0]).toMatchObject({ offset_ms: 0, text_offset: 0 });
    const again = await (first as Synthesizer).synthesize(text, { language: 'en-US' });
    expect(again.boundaries.map((b) => b.text)).toEqual(['Hello', 'world', 'this', 'is', 'Parley']);
  });
});
