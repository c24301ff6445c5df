/**
 * What a broadcast's viewers read of its host's recording, kept on the host's node: the
 * session stream's results, translations, sentence errors, speaker edits and corrections,
 * turned into viewer events under the phase rules (phase.ts), with the final sentences of the
 * current recording (for translations' speakers, spoken translations' transcripts and caption
 * sinks' times) and the speakers' display names. The host session (host-session.ts) owns it.
 */
import type { SentenceCorrected } from '../stream/events.js';
import { type ResultOrigin, startMsOf } from '../stream/events.js';
import type { SentenceErrorData } from '../stream/sentence-errors.js';
import { clock } from '../stream/wire.js';
import { speakerLabel } from '../tasks/format.js';
import type { CatchUpKeeper } from './catch-up/keeper.js';
import type { InterimTranslations } from './interim-translations.js';
import { type BroadcastState, captionsFlow } from './phase.js';
import type { HostSinks } from './sinks/host-sinks.js';
import { viewerCorrection } from './viewer-corrections.js';
import { sentenceErrorEvent, type ViewerEvent } from './viewer-events.js';
import type { ViewerSpeech } from './viewer-speech.js';

/** What the captions need of their host session. */
export interface CaptionHost {
  state(): BroadcastState;
  /** Multi-speaker broadcast: viewers see speakers. */
  diarized: boolean;
  publish(e: ViewerEvent): Promise<void>;
  /** ms from the recording's start -> ms from going live. */
  msFromGoLive(recordingMs: number): number;
  /** Wall-clock time of the current recording's audio position 0. */
  recordingStart(): number;
  interims: InterimTranslations;
  sinks: HostSinks;
  speech: ViewerSpeech;
  catchUp: CatchUpKeeper | null;
  now(): Date;
}

export class HostCaptions {
  /** Final sentences of the current recording (text, speaker, when spoken), for translations' speaker fields, tts_ready's transcript and caption sinks' times. */
  private readonly finals = new Map<number, { text: string; speakerId: string | null; at: Date }>();
  /** Speaker display names of the current recording (renames and merges). */
  private labels: Record<string, string> = {};

  constructor(private readonly host: CaptionHost) {}

  /**
   * An event of the recording's session stream. Results, translations and sentence errors
   * reach viewers only while captions flow (live); a final translation is also spoken once for every tts
   * viewer; the sentence being spoken is translated for viewers (interim translations).
   * Speaker edits reach viewers of a multi-speaker broadcast once it went live.
   */
  fromRecording(action: string, payload: Record<string, unknown>): void {
    if (action === 'speaker_renamed' || action === 'speaker_reassigned' || action === 'speakers_merged') {
      this.speakerEdit(action, payload);
      return;
    }
    // Sentence corrections (viewer-corrections.ts).
    if (action === 'sentence_corrected') {
      this.corrected(payload as unknown as SentenceCorrected);
      return;
    }
    if (!captionsFlow(this.host.state())) return;
    if (action === 'sentence_error') {
      const e = payload as unknown as SentenceErrorData;
      void this.host.publish(sentenceErrorEvent({ code: e.error_code, ...e }, e.sid, e.translation_language, this.host.now()));
    } else if (action === 'result') {
      const o = payload.origin as ResultOrigin;
      const startMs = startMsOf(o);
      const diarized = this.host.diarized;
      const data: Record<string, unknown> = {
        sid: o.sid,
        text: o.text,
        speaker_label: diarized ? speakerLabel(this.labels, o.speaker_id) : null,
        start_time: clock(this.host.msFromGoLive(startMs)),
        is_final: o.is_final,
      };
      if (diarized) data.speaker_id = o.speaker_id;
      if (o.is_final && o.text === '')
        this.host.interims.finalOrigin(o.sid); // withdrawn: no caption
      else if (o.is_final) {
        const at = new Date(this.host.recordingStart() + startMs);
        this.finals.set(o.sid, { text: o.text, speakerId: o.speaker_id, at });
        if (this.finals.size > 100) this.finals.delete(this.finals.keys().next().value as number);
        this.host.interims.finalOrigin(o.sid);
        this.host.sinks.caption(null, { text: o.text, at });
        this.host.catchUp?.add(this.host.msFromGoLive(startMs), o.text);
      }
      void this.host.publish({ event: 'origin', data });
      if (!o.is_final) this.host.interims.interim(o.sid, o.text);
    } else if (action === 'translation') {
      const t = payload as { sid: number; language: string; text: string; is_final: boolean };
      void this.host.publish({
        event: 'translation',
        data: { sid: t.sid, language: t.language, text: t.text, ...this.speaker(t.sid), is_final: t.is_final },
      });
      if (t.is_final) {
        const origin = this.finals.get(t.sid);
        this.host.speech.add({ sid: t.sid, language: t.language, transcript: origin?.text ?? '', text: t.text });
        this.host.sinks.caption(t.language, { text: t.text, at: origin?.at ?? this.host.now() });
      }
    }
  }

  /** speaker_id and speaker_label of a sentence (multi-speaker mode; null otherwise). */
  speaker(sid: number): { speaker_id: string | null; speaker_label: string | null } {
    if (!this.host.diarized) return { speaker_id: null, speaker_label: null };
    const id = this.finals.get(sid)?.speakerId ?? null;
    return { speaker_id: id, speaker_label: speakerLabel(this.labels, id) };
  }

  /** A speaker edit (REST or the host's actions): labels follow it; viewers of a live multi-speaker broadcast get it. */
  private speakerEdit(action: string, d: Record<string, unknown>): void {
    if (action === 'speaker_renamed') {
      const id = String(d.speaker_id);
      if (d.new_label === id) delete this.labels[id];
      else this.labels[id] = String(d.new_label);
    } else if (action === 'speakers_merged') {
      delete this.labels[String(d.source_speaker_id)];
      this.labels[String(d.target_speaker_id)] = String(d.target_speaker_label);
      for (const sid of (d.affected_sids as number[]) ?? []) {
        const f = this.finals.get(sid);
        if (f) f.speakerId = String(d.target_speaker_id);
      }
    } else {
      const f = this.finals.get(Number(d.sid));
      if (f) f.speakerId = String(d.new_speaker_id);
    }
    // Standby sentences never reached viewers; single-speaker broadcasts have no speakers to show.
    if (!this.host.diarized || this.host.state().phase !== 'live' || this.host.state().ended) return;
    void this.host.publish({ event: action, data: d });
  }

  /** A sentence corrected (docs/corrections.md): viewers of the live phase and the caption sinks get the new text. */
  private corrected(c: SentenceCorrected): void {
    const final = this.finals.get(c.sid);
    // Only sentences viewers saw (said while captions flowed) are corrected on their screens.
    if (!final || this.host.state().phase !== 'live' || this.host.state().ended) return;
    final.text = c.text;
    void this.host.publish(viewerCorrection(c, this.speaker(c.sid), clock(this.host.msFromGoLive(startMsOf(c))), this.host.diarized));
    this.host.sinks.caption(null, { text: c.text, at: this.host.now() });
    for (const [language, text] of Object.entries(c.translations)) this.host.sinks.caption(language, { text, at: this.host.now() });
  }
}
