/** Diarization quality measure shared by the diarizer tests and the conformance suite. */
import type { SpeakerTurn, SpeechSegment } from '../../src/engines/types.js';

/** Share of reference speech time given to a speaker active there, under the best mapping of found speakers to channels. */
export function diarizationAccuracy(turns: SpeakerTurn[], ref: SpeechSegment[][], durationMs: number): number {
  const ids = [...new Set(turns.map((t) => t.speakerId))];
  const on = (segs: SpeechSegment[], at: number) => segs.some((s) => at >= s.startMs && at < s.endMs);
  let best = 0;
  for (let mask = 0; mask < 1 << ids.length; mask++) {
    let speech = 0;
    let right = 0;
    for (let at = 0; at < durationMs; at += 10) {
      const active = ref.map((r) => on(r, at));
      if (!active.some(Boolean)) continue;
      speech++;
      const who = turns.find((t) => at >= t.startMs && at < t.endMs)?.speakerId;
      if (who !== undefined && active[(mask >> ids.indexOf(who)) & 1]) right++;
    }
    best = Math.max(best, right / speech);
  }
  return best;
}
