/**
 * The interim text of an utterance from its draft passes (src/engines/streaming/interim-text.ts):
 * committed words never change, a pass that reads the committed words' audio another way still
 * shows what follows them. Passes are written as Whisper returned them (word times in ms).
 */
import { describe, expect, it } from 'vitest';
import type { FileTranscript } from '../../src/engines/speech-types.js';
import { continuationAfter, InterimText } from '../../src/engines/streaming/interim-text.js';

/** A pass: "word@startMs-endMs ..." */
function pass(spec: string): FileTranscript {
  const words = spec.split(' ').map((w) => {
    const [text, times] = w.split('@') as [string, string];
    const [startMs, endMs] = times.split('-').map(Number) as [number, number];
    return { text, startMs, endMs };
  });
  const text = words.map((w) => w.text).join(' ');
  return { text, language: 'en', durationMs: 0, segments: [{ text, startMs: 0, endMs: words.at(-1)!.endMs, words }] };
}

describe('InterimText', () => {
  it('commits what two passes agree on and shows the latest pass after it', () => {
    const interim = new InterimText({ tentativeTail: true, tailGuardMs: 300 });
    expect(interim.add(pass('and@0-200 so@200-400 my@400-600'), 1000)).toBe('and so my');
    expect(interim.add(pass('and@0-200 so@200-400 my@400-600 fellow@600-900 Americans@900-1500'), 1600)).toBe('and so my fellow');
    // The tail is revised; the agreed words stay.
    expect(interim.add(pass('And@0-200 so@200-400 my@400-600 fellow@600-900 American@900-1400 s@1400-1900'), 2100)).toBe(
      'and so my fellow American',
    );
  });

  it('a pass that reads the committed start another way still shows the words after it (by time)', () => {
    const interim = new InterimText({ tentativeTail: true, tailGuardMs: 300 });
    // tiny.en's first second of "Had he married a more amiable woman ...", agreed twice.
    interim.add(pass('how@0-200 do@200-350 you@350-500 married@500-900'), 1000);
    expect(interim.add(pass('how@0-200 do@200-350 you@350-500 marry@500-800 the@800-950'), 1300)).toBe('how do you marry the');
    expect(interim.add(pass('how@0-200 do@200-350 you@350-500 marry@500-800 the@800-950 more@950-1300'), 1600)).toBe(
      'how do you marry the more',
    );
    // Later passes hear the sentence: another text by its words, so before nothing more showed until the final.
    const later = 'had@0-200 he@200-330 married@330-800 a@800-900 more@950-1300 amiable@1300-1800 woman@1800-2200';
    expect(interim.add(pass(later), 2600)).toBe('how do you marry the more amiable woman');
    expect(interim.add(pass(`${later} he@2300-2450 might@2450-2800 have@2800-3000`), 3400)).toBe(
      'how do you marry the more amiable woman he might have',
    );
    // What the two agreed on after the committed words is committed in turn.
    expect(interim.add(pass(`${later} he@2300-2450 might@2450-2800`), 3000)).toBe('how do you marry the more amiable woman he might');
  });

  it('a pass whose last words are untimed (cut at the end of its audio) still goes on by time', () => {
    const interim = new InterimText({ tentativeTail: true, tailGuardMs: 300 });
    interim.add(pass('how@0-200 do@200-350 you@350-500'), 800);
    interim.add(pass('how@0-200 do@200-350 you@350-500 marry@500-700'), 1100);
    const t = pass('had@0-200 he@200-330 married@330-500 a@500-600 more@650-900');
    t.text += ' amiable';
    expect(interim.add(t, 1400)).toBe('how do you a more'); // untimed: all but its last word as the tail
  });

  it('a stable word the agreeing pass left untimed takes its end from the pass before', () => {
    const interim = new InterimText({ tentativeTail: true, tailGuardMs: 300 });
    interim.add(pass('how@0-200 do@200-350 you@350-500 marry@500-800'), 1200);
    const untimedEnd = pass('how@0-200 do@200-350 you@350-500');
    untimedEnd.text += ' marry the';
    expect(interim.add(untimedEnd, 1300)).toBe('how do you marry');
    // "marry" is stable, ending at 800 ms by the first pass: a pass that is another text goes on after it.
    expect(interim.add(pass('had@0-200 he@200-330 married@330-780 a@800-900 more@950-1300'), 1700)).toBe('how do you marry a more');
  });

  it('without word times a pass that is another text shows nothing new (no place to go on from)', () => {
    const interim = new InterimText({ tentativeTail: true, tailGuardMs: 300 });
    const untimed = (text: string): FileTranscript => ({ text, language: 'en', durationMs: 0, segments: [] });
    interim.add(untimed('how do you married'), 1000);
    expect(interim.add(untimed('how do you marry the'), 1300)).toBe('how do you marry');
    expect(interim.add(untimed('had he married a more amiable woman'), 2600)).toBe('how do you');
  });

  it('without the tentative tail only agreed words show', () => {
    const interim = new InterimText({ tentativeTail: false, tailGuardMs: 300 });
    expect(interim.add(pass('ask@0-300 not@300-600'), 1000)).toBe('');
    expect(interim.add(pass('ask@0-300 not@300-600 what@600-900'), 1300)).toBe('ask not');
  });
});

describe('continuationAfter', () => {
  const words = [
    { text: 'a', startMs: 0, endMs: 400 },
    { text: 'b', startMs: 400, endMs: 900 },
  ];
  it('finds the first word whose middle is at or after the end given', () => {
    expect(continuationAfter(words, 0)).toBe(0);
    expect(continuationAfter(words, 450)).toBe(1); // "b" re-read a little later than "a" ended
    expect(continuationAfter(words, 900)).toBe(2);
  });
});
