/**
 * Conformance of every live diarizer (`Diarizer.openLive`, what multi_speaker live sessions use),
 * fed as a session feeds it (bench/diarizer-live.ts: 100 ms chunks, interims every 500 ms, a
 * commit per VAD utterance, corrections applied): dialogue A of bench:diarizer (JFK and a
 * LibriVox reader, phrase by phrase) gives two speakers with the turns in the right order; one
 * speaker stays one; an interim names the new voice while it speaks; two sessions at once (the
 * neural one shares its embedding model) label as each does alone. The neural diarizer runs when
 * its models are installed and fails instead of skipping when PARLEY_TEST_REQUIRE_ENGINES names it.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordings } from '../../../bench/diarizer-accuracy.js';
import { runLive } from '../../../bench/diarizer-live.js';
import { decodeToPcm } from '../../../src/engines/audio/ffmpeg.js';
import { scoreDiarization } from '../../../src/engines/quality/diarization.js';
import type { Diarizer, PcmAudio, SpeakerTurn, SpeechSegment, VoiceActivityDetector } from '../../../src/engines/types.js';
import { haveSharedAudio, JFK, LIBRIVOX_DIR } from '../../support/audio.js';
import { engineSet, forEachEngine } from './engines.js';

const set = await engineSet<Diarizer>('diarizer');
const haveAudio = haveSharedAudio() && existsSync(LIBRIVOX_DIR);
let dialogue: { audio: PcmAudio; reference: SpeechSegment[][]; utterances: SpeechSegment[] };
let jfk: { audio: PcmAudio; utterances: SpeechSegment[] };
beforeAll(async () => {
  if (!haveAudio) return;
  const vads = await engineSet<VoiceActivityDetector>('vad');
  const vad = vads.engines[0]!;
  const a = (await recordings(vad)).find((r) => r.name.startsWith('dialogue A'))!;
  dialogue = { ...a, utterances: await vad.segments(a.audio) };
  const jfkAudio = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
  jfk = { audio: jfkAudio, utterances: await vad.segments(jfkAudio) };
  await vads.close();
}, 120_000);
afterAll(() => set.close());

/** The speaker given most of [startMs, endMs). */
function speakerOf(turns: SpeakerTurn[], s: SpeechSegment): string | undefined {
  const time = new Map<string, number>();
  for (const t of turns) {
    const overlap = Math.min(t.endMs, s.endMs) - Math.max(t.startMs, s.startMs);
    if (overlap > 0) time.set(t.speakerId, (time.get(t.speakerId) ?? 0) + overlap);
  }
  return [...time].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const pcm16 = (x: Float32Array) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))));

if (haveAudio)
  forEachEngine(set, (engine) => {
    it.skipIf(!engine.openLive)(
      'dialogue A live: speakers "1" then "2", every phrase to its own voice, in order',
      async () => {
        const { turns } = await runLive(engine.openLive!(), dialogue.audio.samples, dialogue.utterances);
        expect(new Set(turns.map((t) => t.speakerId))).toEqual(new Set(['1', '2']));
        expect(turns[0]!.speakerId).toBe('1');
        for (const [i, t] of turns.entries()) if (i > 0) expect(t.startMs).toBeGreaterThanOrEqual(turns[i - 1]!.endMs);
        // JFK's phrases (track 0) are speaker "1", the reader's (track 1) speaker "2": the alternation, phrase by phrase.
        const phrases = dialogue.reference
          .flatMap((segs, track) => segs.map((s) => ({ ...s, track })))
          .sort((a, b) => a.startMs - b.startMs);
        expect(phrases.map((p) => speakerOf(turns, p))).toEqual(phrases.map((p) => String(p.track + 1)));
        const score = scoreDiarization(turns, dialogue.reference, (dialogue.audio.samples.length / 16000) * 1000);
        expect(score.speakerErrorShare).toBeLessThan(0.1);
        expect(score.boundaryRecall).toBe(1);
      },
      120_000,
    );

    it.skipIf(!engine.openLive)(
      'one speaker (jfk, several utterances) stays one speaker',
      async () => {
        const { turns } = await runLive(engine.openLive!(), jfk.audio.samples, jfk.utterances);
        expect(jfk.utterances.length).toBeGreaterThan(1);
        expect(new Set(turns.map((t) => t.speakerId))).toEqual(new Set(['1']));
      },
      60_000,
    );

    it.skipIf(!engine.openLive)(
      'an interim names the new voice while it speaks, and teaches nothing',
      () => {
        const live = engine.openLive!();
        const [first, second] = dialogue.utterances as [SpeechSegment, SpeechSegment];
        const until = second.startMs + 2000;
        live.write(pcm16(dialogue.audio.samples.subarray(0, (first.endMs * 16000) / 1000)));
        expect(live.commit(first.startMs, first.endMs).map((p) => p.speakerId)).toEqual(['1']);
        live.write(pcm16(dialogue.audio.samples.subarray((first.endMs * 16000) / 1000, (until * 16000) / 1000)));
        expect(live.current(second.startMs, until)).toBe('2');
        // Asked again (nothing learnt): the same answer, and the commit still founds speaker "2".
        expect(live.current(second.startMs, until)).toBe('2');
        live.write(pcm16(dialogue.audio.samples.subarray((until * 16000) / 1000, (second.endMs * 16000) / 1000)));
        expect(live.commit(second.startMs, second.endMs).map((p) => p.speakerId)).toEqual(['2']);
      },
      60_000,
    );

    it.skipIf(!engine.openLive)(
      'two sessions at once label as each does alone',
      async () => {
        const alone = (await runLive(engine.openLive!(), dialogue.audio.samples, dialogue.utterances)).turns;
        // Interleaved, call by call, with a second session hearing jfk over the same engine (and its shared model).
        const a = engine.openLive!();
        const b = engine.openLive!();
        const jfkPcm = pcm16(jfk.audio.samples);
        let heard = 0;
        const other: Array<string | null> = [];
        const together = (
          await runLive(
            {
              write: (pcm) => {
                a.write(pcm);
                b.write(jfkPcm.subarray(heard % jfkPcm.length, (heard % jfkPcm.length) + pcm.length));
                heard += pcm.length;
              },
              current: (f, t) => {
                other.push(b.current(Math.max(0, t - 2000), t));
                return a.current(f, t);
              },
              commit: (f, t) => a.commit(f, t),
              corrections: () => a.corrections?.() ?? [],
            },
            dialogue.audio.samples,
            dialogue.utterances,
          )
        ).turns;
        expect(together).toEqual(alone);
        expect(other.filter((x) => x !== null).length).toBeGreaterThan(5);
      },
      120_000,
    );
  });
