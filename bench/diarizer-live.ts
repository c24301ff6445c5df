/**
 * bench:diarizer, live part: every diarizer that labels live sessions (`openLive`), fed each
 * recording of the accuracy part (bench/diarizer-accuracy.ts) as a multi_speaker session feeds
 * it: the audio written in 100 ms chunks as it "arrives", an interim label asked every 500 ms
 * of audio inside an utterance (`current`, as src/realtime/live-speakers.ts does), each
 * utterance committed when it ends (`commit`; the utterances are the VAD's segments, where a
 * recognizer's finals would end), and the corrections applied to the committed turns as the
 * session relabels its finals. The committed turns are scored as the file diarizers' are, with
 * the CPU time (process.cpuUsage: user + system, all threads) per second of audio. Model loading
 * happens before the clock starts (a one-second session first).
 */
import { type DiarizationScore, scoreDiarization } from '../src/engines/quality/diarization.js';
import type {
  Diarizer,
  LiveDiarization,
  SpeakerCorrection,
  SpeakerTurn,
  SpeechSegment,
  VoiceActivityDetector,
} from '../src/engines/types.js';
import type { Recording } from './diarizer-accuracy.js';

const RATE = 16000;
const CHUNK_MS = 100;
const INTERIM_EVERY_MS = 500;

export interface LiveRow extends DiarizationScore {
  engine: string;
  recording: string;
  utterances: number;
  corrections: number;
  /** CPU seconds per second of audio. */
  cpuPerSecond: number;
}

/** The committed turns with a correction applied: the part of any turn inside it takes its speaker. */
export function applyCorrection(turns: SpeakerTurn[], c: SpeakerCorrection): SpeakerTurn[] {
  return turns.flatMap((t) => {
    if (t.endMs <= c.startMs || t.startMs >= c.endMs) return [t];
    const parts: SpeakerTurn[] = [];
    if (t.startMs < c.startMs) parts.push({ ...t, endMs: c.startMs });
    parts.push({ startMs: Math.max(t.startMs, c.startMs), endMs: Math.min(t.endMs, c.endMs), speakerId: c.speakerId });
    if (t.endMs > c.endMs) parts.push({ ...t, startMs: c.endMs });
    return parts;
  });
}

/**
 * One live session over `samples` committing at `utterances`: its turns and corrections. It
 * yields to the event loop after each chunk, as a session does between audio messages.
 */
export async function runLive(
  live: LiveDiarization,
  samples: Float32Array,
  utterances: readonly SpeechSegment[],
): Promise<{ turns: SpeakerTurn[]; corrections: number }> {
  const pcm = Int16Array.from(samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))));
  let turns: SpeakerTurn[] = [];
  let corrections = 0;
  let next = 0;
  let lastInterim = Number.NEGATIVE_INFINITY;
  const step = (CHUNK_MS * RATE) / 1000;
  for (let at = 0; at < pcm.length; at += step) {
    live.write(pcm.subarray(at, at + step));
    const nowMs = (Math.min(pcm.length, at + step) / RATE) * 1000;
    // Every utterance that has ended by now is committed (a final), then its corrections applied.
    while (next < utterances.length && utterances[next]!.endMs <= nowMs) {
      const u = utterances[next++]!;
      turns.push(...live.commit(u.startMs, u.endMs));
      for (const c of live.corrections?.() ?? []) {
        turns = applyCorrection(turns, c);
        corrections++;
      }
      lastInterim = Number.NEGATIVE_INFINITY;
    }
    const u = utterances[next];
    if (u && u.startMs < nowMs && nowMs - lastInterim >= INTERIM_EVERY_MS) {
      live.current(u.startMs, nowMs);
      lastInterim = nowMs;
    }
    await new Promise((r) => setImmediate(r));
  }
  return { turns, corrections };
}

export async function liveAccuracy(engines: Diarizer[], recs: Recording[], vad: VoiceActivityDetector): Promise<LiveRow[]> {
  const rows: LiveRow[] = [];
  for (const engine of engines.filter((e) => e.openLive))
    await runLive(engine.openLive!(), new Float32Array(RATE), [{ startMs: 0, endMs: 1000 }]);
  for (const rec of recs) {
    const utterances = await vad.segments(rec.audio);
    const durationMs = (rec.audio.samples.length / RATE) * 1000;
    for (const engine of engines) {
      if (!engine.openLive) continue;
      const cpu = process.cpuUsage();
      const { turns, corrections } = await runLive(engine.openLive(), rec.audio.samples, utterances);
      const used = process.cpuUsage(cpu);
      rows.push({
        engine: engine.id,
        recording: rec.name,
        utterances: utterances.length,
        corrections,
        cpuPerSecond: (used.user + used.system) / 1e6 / (durationMs / 1000),
        ...scoreDiarization(turns, rec.reference, durationMs),
      });
    }
  }
  return rows;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function printLive(rows: LiveRow[]): void {
  console.log('\nlive (openLive: 100 ms chunks, interims every 500 ms, a commit per VAD utterance, corrections applied)');
  console.log(
    'recording | engine | utterances | speaker error = missed + false alarm + confused | boundaries within 0.5 s: recall, precision | speakers | corrections | CPU s per s',
  );
  for (const r of rows)
    console.log(
      `${r.recording} | ${r.engine} | ${r.utterances} | ${pct(r.speakerErrorShare)} = ${pct(r.missedShare)} + ${pct(r.falseAlarmShare)} + ${pct(r.confusedShare)} | ` +
        `${pct(r.boundaryRecall)} of ${r.referenceBoundaries}, ${pct(r.boundaryPrecision)} of ${r.foundBoundaries} | ${r.speakersFound} | ${r.corrections} | ${r.cpuPerSecond.toFixed(3)}`,
    );
  for (const engine of [...new Set(rows.map((r) => r.engine))]) {
    const mine = rows.filter((r) => r.engine === engine);
    const time = mine.reduce((n, r) => n + r.speakerMs, 0);
    const share = (k: 'speakerErrorShare' | 'confusedShare') => mine.reduce((n, r) => n + r[k] * r.speakerMs, 0) / time;
    console.log(
      `pooled ${engine}: speaker error ${pct(share('speakerErrorShare'))}, confused ${pct(share('confusedShare'))} of ${(time / 1000).toFixed(1)} s`,
    );
  }
}
