/**
 * The transcript of one live recording: labelled recognizer results become `result` events
 * under sentence ids (sentence-ids.ts) and finals become its sentences; the speakers' display
 * labels, the speakers kept after a reassign, merges (a merged speaker's later results go to
 * the target), and the live diarizer's corrections of earlier finals (sentences a user
 * reassigned stay as they are). Its share of the fleet snapshot: the next sid, the sentences
 * and the speaker state.
 */

import { readableText } from '../../engines/text/readable.js';
import type { SpeakerCorrection, SttResult } from '../../engines/types.js';
import { applyGlossary, type Glossary } from '../../glossary/index.js';
import type { SessionEventBody } from '../../stream/events.js';
import type { SpeakerEditPlan, SpeakerSnapshot } from '../../tasks/speaker-rules.js';
import type { SentenceInput } from '../../tasks/store.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import { keyOf, type Lane, SentenceIds } from '../sentence-ids.js';

export type TranscriptSnapshot = Pick<RecordingSnapshot, 'nextSid' | 'sentences' | 'speakerLabels' | 'keptSpeakers' | 'mergedInto'>;

export interface TranscriptDeps {
  /** Onto the session stream (every audience). */
  publish(event: SessionEventBody): void;
  /** The session glossary now (results are rewritten with it). */
  glossary(): Glossary | null;
  /** A result with text arrived (the silence watch restarts). */
  speech(): void;
  /** A final sentence was added; `recognizedSpeaker` as the recognizer said it (before merges). */
  final(sentence: SentenceInput, recognizedSpeaker: string | undefined): void;
}

export class Transcript {
  // Sentence ids start at 1 (the TTS stream's default `sid` 1 is the first sentence).
  private sids = new SentenceIds(1);
  readonly sentences: SentenceInput[] = [];
  /** Display labels of speakers (channel labels, rename_speaker); written with the transcript. */
  speakerLabels: Record<string, string> = {};
  /** Speakers whose last sentence was reassigned away (they still exist). */
  keptSpeakers: string[] = [];
  /** Sentences a user reassigned (the diarizer's corrections skip them). */
  private readonly editedSids = new Set<number>();
  /** Speakers merged away: their later results go to the target. */
  private readonly mergedInto = new Map<string, string>();

  constructor(private readonly d: TranscriptDeps) {}

  /**
   * A result with text, in `language`, from a stream that starts at `offsetMs` of the recording:
   * shown under its sentence's sid; a final closes the sentence and joins the transcript.
   */
  deliver(language: string, offsetMs: number, r: SttResult, lane: Lane): void {
    if (!r.text.trim()) return;
    this.d.speech();
    const glossary = this.d.glossary();
    // Readable (capitals, glossary terms as written, punctuation) before anyone sees or translates it.
    const text = readableText(r, language, { rewrite: glossary ? (t) => applyGlossary(t, language, glossary) : undefined });
    const key = keyOf(lane, r);
    const sid = this.sids.of(key);
    const startMs = offsetMs + r.startMs;
    this.publishResult(sid, language, offsetMs, r, text);
    if (!r.isFinal) return;
    this.sids.close(key);
    const sentence: SentenceInput = {
      sid,
      origin: text,
      startMs,
      endMs: offsetMs + r.endMs,
      language,
      speakerId: this.speakerOf(r.speakerId),
    };
    this.sentences.push(sentence);
    this.d.final(sentence, r.speakerId);
  }

  /**
   * An utterance came to nothing (an empty final): a sentence it showed interims of, that a
   * later sentence already follows, gets a final of empty text so every screen drops it; it is
   * not part of the transcript.
   */
  withdraw(language: string, offsetMs: number, r: SttResult, lane: Lane): void {
    const sid = this.sids.withdraw(keyOf(lane, r));
    if (sid === null) return;
    this.publishResult(sid, language, offsetMs, r, '');
  }

  private publishResult(sid: number, language: string, offsetMs: number, r: SttResult, text: string): void {
    this.d.publish({
      event: 'result',
      data: {
        origin: {
          sid,
          language,
          text,
          is_final: r.isFinal,
          speaker_id: this.speakerOf(r.speakerId),
          detected_language: r.detectedLanguage ?? null,
          start_ms: offsetMs + r.startMs,
          // Extension: the audio position (ms from the recording's start) the result covers up to.
          end_ms: offsetMs + r.endMs,
          ...(r.channel !== undefined ? { channel_id: r.channel } : {}),
        },
      },
    });
  }

  /**
   * The live diarizer changed its mind about earlier audio: each final sentence mostly inside
   * it that still carries the old speaker moves to the new one (sentences a user reassigned stay),
   * told to every audience as `speaker_reassigned` (`source` `diarization`) and stored so.
   */
  relabel(c: SpeakerCorrection): void {
    const from = this.speakerOf(c.previousSpeakerId);
    const to = this.speakerOf(c.speakerId) as string;
    if (from === to) return;
    for (const s of this.sentences) {
      const inside = Math.min(s.endMs, c.endMs) - Math.max(s.startMs, c.startMs);
      const mostly = inside > 0 && inside * 2 >= s.endMs - s.startMs;
      if (s.speakerId !== from || this.editedSids.has(s.sid) || !mostly) continue;
      s.speakerId = to;
      this.d.publish({
        event: 'speaker_reassigned',
        data: {
          sid: s.sid,
          old_speaker_id: from as string,
          new_speaker_id: to,
          new_speaker_label: this.speakerLabels[to] ?? to,
          source: 'diarization',
        },
      });
    }
  }

  setSpeakerLabel(speakerId: string, label: string | null): void {
    if (label === null || label === speakerId) delete this.speakerLabels[speakerId];
    else this.speakerLabels[speakerId] = label;
  }

  /** The speakers as the speaker rules see them (src/tasks/speaker-rules.ts): final sentences, `channels`, kept ones. */
  speakerSnapshot(channels: readonly string[]): SpeakerSnapshot {
    const speakers = new Map<string, number[]>();
    for (const s of [...this.sentences].sort((a, b) => a.sid - b.sid)) {
      if (!s.speakerId) continue;
      const list = speakers.get(s.speakerId) ?? [];
      list.push(s.sid);
      speakers.set(s.speakerId, list);
    }
    for (const id of [...channels, ...this.keptSpeakers]) if (!speakers.has(id)) speakers.set(id, []);
    return { labels: { ...this.speakerLabels }, kept: [...this.keptSpeakers], speakers };
  }

  /** Applies a speaker edit to the sentences so far (and to later results of a merged speaker); every audience hears of it. */
  applySpeakerEdit(plan: SpeakerEditPlan<unknown>): void {
    this.speakerLabels = { ...plan.labels };
    this.keptSpeakers = [...plan.kept];
    const move = plan.move;
    if (move) {
      for (const s of this.sentences) {
        if ((move.fromSpeaker !== undefined && s.speakerId === move.fromSpeaker) || move.sids?.includes(s.sid)) s.speakerId = move.to;
      }
      // A user's reassign is final: the live diarizer's later corrections leave these sentences alone.
      for (const sid of move.sids ?? []) this.editedSids.add(sid);
      if (move.fromSpeaker !== undefined) {
        this.mergedInto.set(move.fromSpeaker, move.to);
        for (const [from, to] of this.mergedInto) if (to === move.fromSpeaker) this.mergedInto.set(from, move.to);
      }
    }
    this.d.publish(plan.event);
  }

  /** A recognized speaker after merges. */
  private speakerOf(id: string | undefined): string | null {
    if (id === undefined) return null;
    return this.mergedInto.get(id) ?? id;
  }

  /** Channels finish utterances out of order: the stored transcript is in sid order. */
  sortBySid(): void {
    this.sentences.sort((a, b) => a.sid - b.sid);
  }

  snapshot(): TranscriptSnapshot {
    return {
      nextSid: this.sids.nextSid,
      sentences: this.sentences,
      speakerLabels: this.speakerLabels,
      keptSpeakers: this.keptSpeakers,
      mergedInto: [...this.mergedInto],
    };
  }

  /** A recording continued here: the transcript its earlier holders had. */
  restore(snap: TranscriptSnapshot): void {
    this.sids = new SentenceIds(snap.nextSid);
    this.sentences.push(...snap.sentences);
    this.speakerLabels = { ...snap.speakerLabels };
    this.keptSpeakers = [...snap.keptSpeakers];
    for (const [from, to] of snap.mergedInto) this.mergedInto.set(from, to);
  }
}
