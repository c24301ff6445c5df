/**
 * The transcript part of a live recording (src/realtime/recording/transcript.ts) on its own:
 * which sid a result shows under, which speaker a sentence ends with after user edits and the
 * live diarizer's corrections, and that a recording continued from its snapshot goes on
 * numbering and relabelling as the original would. Speaker edits are planned by the same
 * rules the session actions use (src/tasks/speaker-rules.ts).
 */
import { describe, expect, it } from 'vitest';
import type { SttResult } from '../../../src/engines/types.js';
import { Transcript } from '../../../src/realtime/recording/transcript.js';
import { newLane } from '../../../src/realtime/sentence-ids.js';
import type { SessionEventBody } from '../../../src/stream/events.js';
import { clock } from '../../../src/stream/wire.js';
import { planMerge, planReassign } from '../../../src/tasks/speaker-rules.js';
import type { SentenceInput } from '../../../src/tasks/store.js';

function transcript() {
  const events: SessionEventBody[] = [];
  const finals: Array<{ sentence: SentenceInput; recognized: string | undefined }> = [];
  let speech = 0;
  const t = new Transcript({
    publish: (e) => events.push(e),
    glossary: () => null,
    speech: () => {
      speech++;
    },
    final: (sentence, recognized) => finals.push({ sentence: { ...sentence }, recognized }),
  });
  return { t, events, finals, speech: () => speech };
}

const lane = newLane('main');
const said = (text: string, startMs: number, endMs: number, speakerId: string, isFinal = true): SttResult => ({
  text,
  isFinal,
  startMs,
  endMs,
  speakerId,
});
// biome-ignore lint/suspicious/noExplicitAny: event payloads are read freely
const results = (events: SessionEventBody[]) => events.filter((e) => e.event === 'result').map((e) => (e.data as any).origin);

describe('the transcript of a live recording', () => {
  it('shows interims and their final under one sid, at the position of the stream; only finals become sentences', () => {
    const { t, events, finals, speech } = transcript();
    t.deliver('en', 60_000, said('hello', 1000, 1500, '1', false), lane);
    t.deliver('en', 60_000, said('hello there', 1000, 2200, '1'), lane);
    t.deliver('en', 60_000, said('next one', 3000, 3500, '2', false), lane);
    const shown = results(events);
    // In the stream, times are milliseconds from the recording's start (clients get mm:ss at their edge).
    expect(shown.map((o) => [o.sid, o.is_final, o.start_ms, o.end_ms])).toEqual([
      [1, false, 61_000, 61_500],
      [1, true, 61_000, 62_200],
      [2, false, 63_000, 63_500],
    ]);
    expect(shown.map((o) => clock(o.start_ms))).toEqual(['01:01', '01:01', '01:03']);
    expect(t.sentences).toEqual([{ sid: 1, origin: 'Hello there.', startMs: 61_000, endMs: 62_200, language: 'en', speakerId: '1' }]);
    expect(finals.map((f) => f.sentence.sid)).toEqual([1]);
    expect(speech()).toBe(3);
  });

  it('ignores a result without text, and withdraws an empty final only when a later sentence already took a number', () => {
    const { t, events } = transcript();
    const a = newLane();
    const b = newLane();
    t.deliver('en', 0, { text: '   ', isFinal: true, startMs: 0, endMs: 10 }, a);
    t.deliver('en', 0, { text: 'first', isFinal: false, startMs: 0, endMs: 500, utterance: 0 }, a);
    // Nothing followed: its number is given back, and the next sentence takes it.
    t.withdraw('en', 0, { text: '', isFinal: true, startMs: 0, endMs: 600, utterance: 0 }, a);
    t.deliver('en', 0, { text: 'again', isFinal: false, startMs: 700, endMs: 900, utterance: 1 }, a);
    t.deliver('en', 0, { text: 'other', isFinal: false, startMs: 700, endMs: 900, utterance: 0 }, b);
    // A later sentence (sid 2) already shows: sid 1 gets a final of empty text.
    t.withdraw('en', 0, { text: '', isFinal: true, startMs: 700, endMs: 1000, utterance: 1 }, a);
    expect(results(events).map((o) => [o.sid, o.text, o.is_final])).toEqual([
      [1, 'First', false],
      [1, 'Again', false],
      [2, 'Other', false],
      [1, '', true],
    ]);
    expect(t.sentences).toEqual([]);
  });

  it("moves a merged speaker's earlier sentences and later results to the target (merges chain)", () => {
    const { t, events, finals } = transcript();
    t.deliver('en', 0, said('one', 0, 1000, 'A'), lane);
    t.deliver('en', 0, said('two', 1000, 2000, 'B'), lane);
    t.deliver('en', 0, said('three', 2000, 3000, 'C'), lane);
    t.applySpeakerEdit(planMerge(t.speakerSnapshot([]), { sourceGiven: 'A', targetGiven: 'B' }));
    t.applySpeakerEdit(planMerge(t.speakerSnapshot([]), { sourceGiven: 'B', targetGiven: 'C' }));
    t.deliver('en', 0, said('four', 3000, 4000, 'A'), lane);
    expect(t.sentences.map((s) => s.speakerId)).toEqual(['C', 'C', 'C', 'C']);
    expect(results(events).at(-1).speaker_id).toBe('C');
    // Translation hears the speaker as the recognizer named it (a conversation side is chosen by it).
    expect(finals.at(-1)?.recognized).toBe('A');
    expect(events.filter((e) => e.event === 'speakers_merged')).toHaveLength(2);
  });

  it('relabels sentences mostly inside a diarizer correction, except those a user reassigned', () => {
    const { t, events } = transcript();
    t.deliver('en', 0, said('one', 0, 1000, '1'), lane);
    t.deliver('en', 0, said('two', 1000, 2000, '2'), lane);
    t.deliver('en', 0, said('three', 2000, 3000, '1'), lane);
    t.deliver('en', 0, said('four', 3000, 4000, '2'), lane);
    // The user says sentence 2 is speaker 1's.
    t.applySpeakerEdit(planReassign(t.speakerSnapshot([]), 2, '1', { speakerId: '2' }));
    t.setSpeakerLabel('2', 'Bob');
    // The diarizer now hears 0..2400 ms as speaker 2: sentence 1 moves; 2 (the user's word) and 3 (40 % inside) stay.
    t.relabel({ startMs: 0, endMs: 2400, speakerId: '2', previousSpeakerId: '1' });
    expect(t.sentences.map((s) => s.speakerId)).toEqual(['2', '1', '1', '2']);
    const moved = events.filter((e) => e.event === 'speaker_reassigned' && 'source' in e.data);
    expect(moved.map((e) => e.data)).toEqual([
      { sid: 1, old_speaker_id: '1', new_speaker_id: '2', new_speaker_label: 'Bob', source: 'diarization' },
    ]);
  });

  it('goes on from its snapshot: sids continue, labels and merges hold', () => {
    const first = transcript();
    first.t.deliver('en', 0, said('one', 0, 1000, 'A'), lane);
    first.t.deliver('en', 0, said('two', 1000, 2000, 'B'), lane);
    first.t.setSpeakerLabel('B', 'Bea');
    first.t.applySpeakerEdit(planMerge(first.t.speakerSnapshot(['X']), { sourceGiven: 'A', targetGiven: 'B' }));
    const snap = JSON.parse(JSON.stringify(first.t.snapshot()));
    const next = transcript();
    next.t.restore(snap);
    next.t.deliver('en', 2000, said('three', 0, 1000, 'A'), newLane('main'));
    expect(next.t.sentences.map((s) => [s.sid, s.speakerId])).toEqual([
      [1, 'B'],
      [2, 'B'],
      [3, 'B'],
    ]);
    const s = next.t.speakerSnapshot(['X']);
    expect(s.labels).toEqual({ B: 'Bea' });
    expect([...s.speakers]).toEqual([
      ['B', [1, 2, 3]],
      ['X', []],
    ]);
  });
});
