/**
 * Diarization scores against a reference given as one list of speech segments per speaker
 * (for a two-channel recording: what the VAD finds on each channel). Scored every 10 ms, with
 * overlapping speech counted for each speaker in it, as the diarization error rate (DER) counts:
 * - missed: reference speaker time with fewer found speakers than talking;
 * - false alarm: found speaker time beyond the number talking;
 * - confused: the rest of the reference speaker time not given to the right speaker, under the
 *   one-to-one mapping of found speakers to reference speakers that gets most right (a found
 *   speaker mapped to nobody is always wrong: splitting a voice in two costs);
 * - speaker error share = (missed + false alarm + confused) / reference speaker time (the DER,
 *   no collar);
 * - turn boundaries: the moments the set of speakers talking changes from one (non-empty) set
 *   to another, across a pause midway through it; a boundary is hit when the other side has one
 *   within the tolerance (0.5 s): recall over the reference's boundaries, precision over the
 *   found ones. No mapping is needed for these.
 */
import type { SpeakerTurn, SpeechSegment } from '../types.js';

const STEP_MS = 10;

export interface DiarizationScore {
  /** Reference speaker time (overlap counts once per speaker). */
  speakerMs: number;
  missedShare: number;
  falseAlarmShare: number;
  confusedShare: number;
  speakerErrorShare: number;
  referenceBoundaries: number;
  foundBoundaries: number;
  /** Share of reference speaker changes with a found change within the tolerance. */
  boundaryRecall: number;
  /** Share of found speaker changes with a reference change within the tolerance. */
  boundaryPrecision: number;
  speakersFound: number;
}

type Timeline = Array<{ startMs: number; endMs: number; who: string }>;

/** The sorted, distinct speakers talking at `at`, as one key ("" for nobody). */
const talking = (t: Timeline, at: number) => [...new Set(t.filter((s) => at >= s.startMs && at < s.endMs).map((s) => s.who))].sort();

/** Moments where the set of speakers talking changes (placed midway through a pause between the two sets). */
export function changePoints(t: Timeline, durationMs: number): number[] {
  const out: number[] = [];
  let last = '';
  let lastEnd = 0;
  for (let at = 0; at < durationMs; at += STEP_MS) {
    const key = talking(t, at).join(',');
    if (!key) continue;
    if (last && key !== last) out.push((lastEnd + at) / 2);
    last = key;
    lastEnd = at;
  }
  return out;
}

function assignments(n: number, k: number): number[][] {
  // Every one-to-one assignment of n found speakers to k reference speakers or nobody (-1).
  const out: number[][] = [];
  const walk = (acc: number[], used: Set<number>) => {
    if (acc.length === n) return void out.push([...acc]);
    for (let r = -1; r < k; r++) {
      if (r >= 0 && used.has(r)) continue;
      walk([...acc, r], r >= 0 ? new Set([...used, r]) : used);
    }
  };
  walk([], new Set());
  return out;
}

export function scoreDiarization(
  turns: SpeakerTurn[],
  reference: SpeechSegment[][],
  durationMs: number,
  toleranceMs = 500,
): DiarizationScore {
  const ids = [...new Set(turns.map((t) => t.speakerId))];
  const found: Timeline = turns.map((t) => ({ ...t, who: t.speakerId }));
  const ref: Timeline = reference.flatMap((segs, i) => segs.map((s) => ({ ...s, who: String(i) })));
  // together[f][r]: moments found speaker f and reference speaker r both talk.
  const together = ids.map(() => reference.map(() => 0));
  let refTime = 0;
  let missed = 0;
  let falseAlarm = 0;
  for (let at = 0; at < durationMs; at += STEP_MS) {
    const r = talking(ref, at).map(Number);
    const f = talking(found, at);
    refTime += r.length;
    missed += Math.max(0, r.length - f.length);
    falseAlarm += Math.max(0, f.length - r.length);
    for (const who of f) for (const i of r) together[ids.indexOf(who)]![i]!++;
  }
  // Bounded by the speaker counts of a benchmark (a handful): every assignment is tried.
  let right = 0;
  for (const map of assignments(ids.length, reference.length))
    right = Math.max(
      right,
      map.reduce((n, r, f) => n + (r >= 0 ? together[f]![r]! : 0), 0),
    );
  // Speaker time both sides have (min of the counts) that the mapping does not get right.
  let matched = 0;
  for (let at = 0; at < durationMs; at += STEP_MS) matched += Math.min(talking(ref, at).length, talking(found, at).length);
  const refPoints = changePoints(ref, durationMs);
  const foundPoints = changePoints(found, durationMs);
  const near = (p: number, others: number[]) => others.some((o) => Math.abs(o - p) <= toleranceMs);
  const share = (n: number, d: number) => (d === 0 ? 0 : n / d);
  const confused = matched - right;
  return {
    speakerMs: refTime * STEP_MS,
    missedShare: share(missed, refTime),
    falseAlarmShare: share(falseAlarm, refTime),
    confusedShare: share(confused, refTime),
    speakerErrorShare: share(missed + falseAlarm + confused, refTime),
    referenceBoundaries: refPoints.length,
    foundBoundaries: foundPoints.length,
    boundaryRecall: refPoints.length ? refPoints.filter((p) => near(p, foundPoints)).length / refPoints.length : 1,
    boundaryPrecision: foundPoints.length ? foundPoints.filter((p) => near(p, refPoints)).length / foundPoints.length : 1,
    speakersFound: ids.length,
  };
}
