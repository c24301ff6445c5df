/**
 * multi_speaker live sessions: a plain recognizer's results labelled by a live diarizer
 * (src/engines/builtin/diarizer/online.ts). Interim results carry the speaker of the latest
 * audio (recomputed at most every INTERIM_EVERY_MS of audio, so an utterance costs a few
 * passes a second); a final is split where the speaker changed inside it (by its word
 * times), each part its own sentence with its own speaker. A final may say another speaker
 * than the interims did: it is the correction, and every audience gets it.
 *
 * A diarizer that throws is not asked again (its state is unknown): `onFailure` reports it
 * once (`diarization_failed`, severity error), and the rest of the session carries the last
 * speaker it named. Recognition goes on; losing the labels must not lose the words.
 */
import type { LiveDiarization, SpeakerCorrection, SpeakerPiece, SttResult } from '../engines/types.js';

const INTERIM_EVERY_MS = 500;

export class LiveSpeakers {
  private lastAtMs = Number.NEGATIVE_INFINITY;
  private last: string | null = null;
  private failed = false;

  constructor(
    private readonly diarization: LiveDiarization,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** The diarizer's answer, or `fallback` for good once it has thrown. */
  private ask<T>(call: () => T, fallback: T): T {
    if (this.failed) return fallback;
    try {
      return call();
    } catch (err) {
      this.failed = true;
      this.onFailure(err);
      return fallback;
    }
  }

  write(pcm: Int16Array): void {
    this.ask(() => this.diarization.write(pcm), undefined);
  }

  /** Earlier finals' audio now judged another speaker (drained). */
  corrections(): SpeakerCorrection[] {
    return this.ask(() => this.diarization.corrections?.() ?? [], []);
  }

  /** The speaker for an interim covering [fromMs, toMs) of the recording. */
  interim(fromMs: number, toMs: number): string | null {
    if (toMs - this.lastAtMs >= INTERIM_EVERY_MS || this.last === null) {
      this.last = this.ask(() => this.diarization.current(fromMs, toMs), null) ?? this.last;
      this.lastAtMs = toMs;
    }
    return this.last;
  }

  /** A final (times relative to its stream, which starts at `offsetMs`) as one result per speaker turn. */
  final(r: SttResult, offsetMs: number): SttResult[] {
    const pieces = this.ask(() => this.diarization.commit(offsetMs + r.startMs, offsetMs + r.endMs), []);
    this.lastAtMs = Number.NEGATIVE_INFINITY;
    this.last = pieces.at(-1)?.speakerId ?? this.last;
    if (pieces.length <= 1 || !r.words || r.words.length < 2) {
      return [{ ...r, speakerId: longest(pieces, offsetMs + r.startMs, offsetMs + r.endMs) ?? this.last ?? '1' }];
    }
    const runs: Array<{ speakerId: string; words: NonNullable<SttResult['words']> }> = [];
    for (const w of r.words) {
      const speakerId = longest(pieces, offsetMs + w.startMs, offsetMs + w.endMs) ?? (pieces[0] as SpeakerPiece).speakerId;
      const run = runs.at(-1);
      if (run && run.speakerId === speakerId) run.words.push(w);
      else runs.push({ speakerId, words: [w] });
    }
    return runs.map((run, i) => ({
      ...r,
      text: run.words.map((w) => w.text).join(' '),
      words: run.words,
      startMs: i === 0 ? r.startMs : (run.words[0] as { startMs: number }).startMs,
      endMs: i === runs.length - 1 ? r.endMs : (run.words.at(-1) as { endMs: number }).endMs,
      speakerId: run.speakerId,
    }));
  }
}

/** The speaker with the most time inside [fromMs, toMs) (the nearest piece when none overlaps). */
function longest(pieces: readonly SpeakerPiece[], fromMs: number, toMs: number): string | null {
  let best: string | null = null;
  let bestOverlap = 0;
  let nearest: string | null = null;
  let nearestGap = Number.POSITIVE_INFINITY;
  for (const p of pieces) {
    const overlap = Math.min(toMs, p.endMs) - Math.max(fromMs, p.startMs);
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = p.speakerId;
    }
    const gap = Math.max(p.startMs - toMs, fromMs - p.endMs, 0);
    if (gap < nearestGap) {
      nearestGap = gap;
      nearest = p.speakerId;
    }
  }
  return best ?? nearest;
}
