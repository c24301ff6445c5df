/**
 * Recognition of one live recording: the recognizer stream of the language recognized now
 * (`switch_language` replaces it: the utterance in progress is finalized in the old language,
 * audio arriving meanwhile is kept for the new stream), or one per channel (multi_channel,
 * channels.ts), the live diarizer beside a recognizer that does not label speakers itself
 * (multi_speaker, live-speakers.ts), and who speaks in a conversation. Results leave labelled:
 * a final holding two speakers is split per turn, the diarizer's corrections follow; the
 * transcript numbers and shows them. Its share of the fleet snapshot: the language, the
 * conversation's speakers and the channels.
 */
import type { Logger } from 'pino';
import { EngineError } from '../../engines/errors.js';
import { refusalError } from '../../engines/refusal.js';
import type { EngineRegistry } from '../../engines/registry.js';
import { liveDiarizer, openLabelled } from '../../engines/streaming/labels.js';
import type { RecognizerStream, SpeakerCorrection, SttResult } from '../../engines/types.js';
import { type Glossary, termHints } from '../../glossary/index.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { ChannelSpec } from '../channel-spec.js';
import { ChannelSet } from '../channels.js';
import type { ConversationSpeaker } from '../conversation.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import { LiveSpeakers } from '../live-speakers.js';
import { type Lane, newLane } from '../sentence-ids.js';
import type { StartRequest } from '../start.js';
import type { EndMode } from './types.js';

/** Conversation recordings: the two speakers (languages may change) and who speaks now (conversation-actions.ts). */
export type Talk = { speakers: ConversationSpeaker[]; active: string };

/** A conversation's speakers as the start names them, the first one speaking. */
export function talkOf(start: StartRequest): Talk | null {
  const c = start.conversation;
  return c ? { speakers: c.speakers.map((sp) => ({ ...sp })), active: c.speakers[0].speakerId } : null;
}

export type RecognitionSnapshot = Pick<RecordingSnapshot, 'language' | 'talk' | 'channels'>;

/** Where labelled results go (the transcript). */
export interface ResultSink {
  /** A result with text in `language`, from a stream that starts at `offsetMs` of the recording. */
  deliver(language: string, offsetMs: number, r: SttResult, lane: Lane): void;
  /** An empty final: the utterance came to nothing. */
  withdraw(language: string, offsetMs: number, r: SttResult, lane: Lane): void;
  /** The live diarizer now judges earlier audio another speaker's. */
  relabel(c: SpeakerCorrection): void;
}

export interface RecognitionDeps {
  engines: EngineRegistry;
  logger: Logger;
  /** Sends an error to the owner's client. */
  error(err: AppError): void;
  /** Backpressure of each recognizer stream (StreamingSttOptions.maxBacklogMs). */
  maxBacklogMs: number;
  /** The session glossary now (its terms are recognition hints). */
  glossary(): Glossary | null;
  /** The recording's length so far (where a new stream starts). */
  positionMs(): number;
  results: ResultSink;
}

/**
 * multi_language with two or more languages: the recognizer tells them apart and each
 * result is in the language it reports (`detectedLanguage`); the stream's language is the fallback.
 */
export function candidateLanguages(start: StartRequest): readonly string[] | undefined {
  const all = start.transcriptionLanguages;
  return start.recognitionMode === 'multi_language' && all.length > 1 ? all : undefined;
}

export class Recognition {
  /** The language recognized now (`switch_language` changes it). */
  language: string;
  private stream: RecognizerStream | null = null;
  /** multi_channel: one recognizer per channel instead of `stream`. */
  channels: ChannelSet | null = null;
  /** multi_speaker with a recognizer that does not diarize: the live diarizer's labels. */
  private speakers: LiveSpeakers | null = null;
  /** PCM that arrived while the recognizer was being switched; fed to the new stream. */
  private switching: Int16Array[] | null = null;
  private switched: Promise<void> | null = null;

  constructor(
    private readonly d: RecognitionDeps,
    private readonly start: StartRequest,
    /** Conversation recordings (talkOf): shared with translation, which reads it. */
    readonly talk: Talk | null,
  ) {
    this.language = start.transcriptionLanguages[0] as string;
    if (this.talk) this.language = this.talk.speakers[0]?.language ?? this.language;
  }

  /** The language the conversation speaks now (the active speaker's). */
  get activeLanguage(): string {
    return this.talk?.speakers.find((sp) => sp.speakerId === this.talk?.active)?.language ?? this.language;
  }

  /** The glossary changed: the recognizer favours its terms from the next utterance on. */
  refreshTerms(): void {
    this.stream?.setTerms?.(this.terms(this.language));
  }

  private terms(language: string): string[] {
    const glossary = this.d.glossary();
    return glossary ? termHints(language, glossary) : [];
  }

  /** Opens the recognizers at `offsetMs` of the recording: one per channel of `channels`, else one for the language. */
  async open(offsetMs: number, channels: readonly ChannelSpec[] | null): Promise<void> {
    if (channels) {
      this.channels = new ChannelSet((spec, offset, lane) => this.openChannel(spec, offset, lane), offsetMs);
      await this.channels.begin(channels);
    } else this.stream = await this.openStream(this.language, offsetMs, this.talkLabels());
  }

  /** multi_speaker: the live diarizer beside a recognizer without diarization of its own (null: the recognizer labels speakers). */
  openSpeakers(): LiveSpeakers | null {
    const selected = this.d.engines.select({ kind: 'streaming-stt', language: this.language, interimResults: true, diarization: true });
    if (selected.ok) return null; // the recognizer labels speakers itself
    const diarizer = liveDiarizer(this.d.engines);
    if (!diarizer?.openLive) throw new AppError('diarization_unavailable', { variant: 'websocket', details: { language: this.language } });
    try {
      this.speakers = new LiveSpeakers(diarizer.openLive(), (err) => {
        this.d.logger.error({ err, engine: diarizer.id }, 'live diarization failed; later sentences keep the last speaker');
        this.d.error(new AppError('diarization_failed', { variant: 'websocket', details: { engine: diarizer.id } }));
      });
      return this.speakers;
    } catch (err) {
      this.d.logger.error({ err }, 'live diarization did not start');
      throw new AppError('diarization_start_failed', { variant: 'websocket', details: { engine: diarizer.id } });
    }
  }

  /** A channel's recognizer: its results carry the channel and its speaker ("<channel_id>"). */
  private openChannel(spec: ChannelSpec, offset: number, lane: Lane): Promise<RecognizerStream> {
    return this.openStream(spec.language, offset, { channel: spec.channelId, speakerId: String(spec.channelId) }, lane);
  }

  /**
   * Results of a stream are relative to its own start: `offset` is where it begins in the
   * recording. A stream with its own `lane` numbers its sentences apart from the others (several
   * streams at once); main streams (one at a time) share the lane of unnumbered utterances, so a
   * sentence a replaced stream left open is taken on by its successor.
   */
  private async openStream(
    language: string,
    offset: number,
    labels: { channel?: number; speakerId?: string } = {},
    lane?: Lane,
  ): Promise<RecognizerStream> {
    const languages = candidateLanguages(this.start);
    const selected = this.d.engines.select({
      kind: 'streaming-stt',
      language,
      interimResults: true,
      ...(languages ? { languages } : {}),
    });
    if (!selected.ok) throw refusalError('stt_init_failed', selected.refusal, { variant: 'websocket', details: { language } });
    const recognizer = selected.engine;
    const sentences = lane ?? newLane('main');
    try {
      return await openLabelled(recognizer, {
        ...labels,
        language,
        ...(languages ? { languages } : {}),
        interimResults: true,
        // A final split at a speaker change takes further sentence numbers: the next utterance waits.
        inUtteranceOrder: this.start.recognitionMode === 'multi_speaker',
        terms: this.terms(language),
        onResult: (r) => this.onResult(language, offset, r, sentences),
        onError: (err) => {
          this.d.logger.error({ err }, 'recognizer failed');
          this.d.error(new AppError('stt_connection_lost', { variant: 'websocket', details: { language } }));
        },
        maxBacklogMs: this.d.maxBacklogMs,
        // Recognition is slower than the audio arrives: the client is told once per episode.
        onAudioDropped: ({ backlogMs, limitMs }) => {
          this.d.logger.warn({ backlogMs, limitMs, language }, 'recognition behind: audio dropped');
          this.d.error(
            new AppError('stt_audio_dropped', {
              variant: 'websocket',
              details: { language, backlog_ms: backlogMs, limit_ms: limitMs, at_ms: Math.round(this.d.positionMs()) },
            }),
          );
        },
      });
    } catch (err) {
      // Every decoder busy (retryable) is a capacity answer the client gets as stt_init_failed, not a fault.
      if (err instanceof EngineError && err.retryable) this.d.logger.warn({ reason: err.message, language }, 'recognizer did not open');
      else this.d.logger.error({ err, language }, 'recognizer did not open');
      // The engine's own code when it has one (stt_init_failed: every decoder busy), else stt_start_failed.
      const code = err instanceof EngineError ? err.code : 'stt_start_failed';
      throw new AppError(code, { variant: 'websocket', message: (err as Error).message, details: { language } });
    }
  }

  /** Conversation: results of a stream carry the speaker who was speaking when it opened. */
  private talkLabels(): { speakerId?: string } {
    return this.talk ? { speakerId: this.talk.active } : {};
  }

  /**
   * switch_language: the utterance in progress is finalized in the old language, then a new
   * stream recognizes the new one. Audio arriving meanwhile is kept and fed to the new stream.
   */
  async switchLanguage(language: string): Promise<void> {
    const old = this.stream;
    if (!old || this.switching) throw new AppError('session_not_started', { variant: 'websocket', details: { action: 'switch_language' } });
    const buffered: Int16Array[] = [];
    this.switching = buffered;
    this.stream = null;
    const at = this.d.positionMs();
    this.switched = (async () => {
      try {
        await old.end();
        this.language = language;
        const next = await this.openStream(language, at, this.talkLabels());
        for (const c of buffered) next.write(c);
        this.stream = next;
      } finally {
        this.switching = null;
      }
    })();
    await this.switched;
  }

  /**
   * 16 kHz mono samples to the recognizers; multi_channel: interleaved frames split among the
   * channels' recognizers. Returns what the recording keeps (multi_channel: the mono mix).
   */
  feed(pcm: Int16Array): Int16Array {
    let kept = pcm;
    if (this.channels) kept = this.channels.write(pcm);
    else if (this.switching) this.switching.push(pcm);
    else this.stream?.write(pcm);
    this.speakers?.write(kept);
    return kept;
  }

  private onResult(language: string, offsetMs: number, r: SttResult, lane: Lane): void {
    const sink = this.d.results;
    if (!r.text.trim()) {
      if (r.isFinal) sink.withdraw(language, offsetMs, r, lane);
      return;
    }
    // multi_language: the utterance is in the language the recognizer heard (one of the start's).
    const heard = candidateLanguages(this.start) && r.detectedLanguage ? r.detectedLanguage : language;
    if (!this.speakers || r.speakerId !== undefined) {
      sink.deliver(heard, offsetMs, r, lane);
      return;
    }
    if (!r.isFinal) {
      const speakerId = this.speakers.interim(offsetMs + r.startMs, offsetMs + r.endMs);
      sink.deliver(heard, offsetMs, speakerId === null ? r : { ...r, speakerId }, lane);
      return;
    }
    // A final may hold two speakers: one sentence per speaker turn.
    for (const part of this.speakers.final(r, offsetMs)) sink.deliver(heard, offsetMs, part, lane);
    for (const c of this.speakers.corrections()) sink.relabel(c);
  }

  /**
   * Ends the recognizers. `finish` and `park` end them (each utterance in progress becomes a
   * final, after a language switch under way); `discard` and `abandon` abort them. A parked or
   * discarded recording no longer has channels here.
   */
  async close(mode: EndMode): Promise<void> {
    if (mode === 'finish' || mode === 'park') {
      await this.switched?.catch(() => {});
      await this.stream?.end();
      this.stream = null;
      await this.channels?.end();
    } else {
      this.stream?.abort();
      this.stream = null;
      this.channels?.abort();
    }
    if (mode === 'park' || mode === 'discard') this.channels = null;
  }

  snapshot(): RecognitionSnapshot {
    return { language: this.language, talk: this.talk, channels: this.channels?.specs ?? null };
  }

  /** A recording continued here: the language and the conversation's speakers as its earlier holder left them. */
  restore(snap: RecognitionSnapshot): void {
    this.language = snap.language;
    if (this.talk && snap.talk) {
      this.talk.speakers = snap.talk.speakers.map((sp) => ({ ...sp }));
      this.talk.active = snap.talk.active;
    }
  }
}
