/** The diarization scores bench:diarizer reports (src/engines/quality/diarization.ts), on hand-made timelines. */
import { describe, expect, it } from 'vitest';
import { changePoints, scoreDiarization } from '../../src/engines/quality/diarization.js';

const turn = (startMs: number, endMs: number, speakerId: string) => ({ startMs, endMs, speakerId });
// Two speakers taking turns: A 0-2 s, B 2.5-5 s, A 5.5-8 s.
const reference = [
  [
    { startMs: 0, endMs: 2000 },
    { startMs: 5500, endMs: 8000 },
  ],
  [{ startMs: 2500, endMs: 5000 }],
];

describe('scoreDiarization', () => {
  it('a perfect answer under other names scores no error and finds every boundary', () => {
    const s = scoreDiarization([turn(0, 2000, '1'), turn(2500, 5000, '2'), turn(5500, 8000, '1')].reverse(), reference, 8000);
    expect(s.speakerErrorShare).toBe(0);
    expect(s.referenceBoundaries).toBe(2);
    expect(s.boundaryRecall).toBe(1);
    expect(s.boundaryPrecision).toBe(1);
    expect(s.speakersFound).toBe(2);
  });

  it('one speaker for everything: the second voice is confused, its boundaries are not found', () => {
    const s = scoreDiarization([turn(0, 8000, '1')], reference, 8000);
    expect(s.confusedShare).toBeCloseTo(2500 / 7000, 3);
    expect(s.missedShare).toBe(0);
    expect(s.falseAlarmShare).toBeCloseTo(1000 / 7000, 3); // the two pauses labelled as speech
    expect(s.boundaryRecall).toBe(0);
  });

  it('a voice split in two costs: the extra speaker maps to nobody', () => {
    const s = scoreDiarization([turn(0, 2000, '1'), turn(2500, 5000, '2'), turn(5500, 8000, '3')], reference, 8000);
    // Best mapping: "3" (2.5 s) and "2" to the reference speakers; "1" (2 s) maps to nobody.
    expect(s.confusedShare).toBeCloseTo(2000 / 7000, 3);
    expect(s.speakersFound).toBe(3);
  });

  it('a boundary 0.6 s late is missed at the 0.5 s tolerance and hit at 0.7 s; missed speech is counted', () => {
    const late = [turn(0, 2850, '1'), turn(2850, 5000, '2'), turn(5500, 8000, '1')];
    expect(scoreDiarization(late, reference, 8000).boundaryRecall).toBe(0.5);
    expect(scoreDiarization(late, reference, 8000, 700).boundaryRecall).toBe(1);
    expect(scoreDiarization([turn(0, 2000, '1')], reference, 8000).missedShare).toBeCloseTo(5000 / 7000, 3);
  });

  it('overlapped speech counts once per speaker: one label there misses the other', () => {
    const overlap = [[{ startMs: 0, endMs: 4000 }], [{ startMs: 1000, endMs: 3000 }]];
    expect(scoreDiarization([turn(0, 4000, '1')], overlap, 4000).missedShare).toBeCloseTo(2000 / 6000, 3);
    expect(scoreDiarization([turn(0, 4000, '1'), turn(1000, 3000, '2')], overlap, 4000).speakerErrorShare).toBe(0);
    expect(
      changePoints(
        [
          { startMs: 0, endMs: 4000, who: 'a' },
          { startMs: 1000, endMs: 3000, who: 'b' },
        ],
        4000,
      ),
    ).toEqual([995, 2995]);
  });
});
