/**
 * One live recording: the task record, the recognizer stream (switchable to another
 * language mid-session), the session glossary applied to every result, real-time translation
 * of finals, the audio kept on disk as it arrives (WAV in the data dir's temp folder), and
 * per-minute billing with the plan's running limits. Finalization is in finalize.ts.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AudioTools, LiveAudioDecoder } from '../engines/audio/port.js';
import { EngineError } from '../engines/errors.js';
import { refusalError } from '../engines/refusal.js';
import type { EngineRegistry } from '../engines/registry.js';
import { liveDiarizer, openLabelled } from '../engines/streaming/labels.js';
import { readableText } from '../engines/text/readable.js';
import type { RecognizerStream, SpeakerCorrection, SttResult } from '../engines/types.js';
import { applyGlossary, dictionaryFor, type Glossary, termHints, translateWithDictionary } from '../glossary/index.js';
import { baseLanguage } from '../languages.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { SessionPublisher, SessionStreams } from '../stream/session-streams.js';
import type { SpeakerEditPlan, SpeakerSnapshot } from '../tasks/speakers/rules.js';
import type { SentenceInput, TranslationInput } from '../tasks/store.js';
import type { ChannelSpec } from './channel-spec.js';
import { ChannelSet } from './channels.js';
import type { ConversationSpeaker } from './conversation.js';
import { type FinalizeDeps, type FinishKind, finalizeRecording, summaryRequestOf } from './finalize.js';
import { downloadSegments, SegmentWriter, segmentPrefix } from './live/segments.js';
import type { OwnerState, RecordingSnapshot } from './live/snapshot.js';
import { type EndState, type LiveRecordingStore, type LiveRow, tokenHash } from './live/store.js';
import { LiveSpeakers } from './live-speakers.js';
import type { RecordingSidecar } from './recover.js';
import { keyOf, type Lane, newLane, SentenceIds } from './sentence-ids.js';
import type { StartRequest } from './start.js';
import { wavHeader } from './wav.js';

/** Consecutive sentence failures before translation_service_unavailable is reported. */
export const TRANSLATION_FAILURES_BEFORE_UNAVAILABLE = 3;
const BYTES_PER_MS = 32; // 16 kHz * 2 bytes / 1000

export interface RecordingDeps extends FinalizeDeps {
  /** The M4A at the end, and the live decoder of WebM sessions. */
  audio: Pick<AudioTools, 'encodeFile' | 'liveDecoder'>;
  engines: EngineRegistry;
  tempDir: string;
  /** Backpressure of each recognizer stream (StreamingSttOptions.maxBacklogMs). */
  maxBacklogMs: number;
  /** Per-minute billing of live audio (billing service and the plan's limits calculator). */
  billing: {
    minuteMs: number;
    startUsage(principal: Principal, taskId: string, start: StartRequest): Promise<string>;
    /**
     * Charges minute `index`. Before a minute after the first, the plan's running limits are
     * asked: throws daily_limit_disconnect / daily_limit_reached when the recording must end,
     * auth_quota_exceeded when the budget cannot cover the minute.
     */
    chargeMinute(principal: Principal, usageId: string, index: number, start: StartRequest): Promise<void>;
    endUsage(usageId: string): Promise<void>;
    /** A recording that received no audio is not charged: every charge back to its lot. */
    refundNoAudio(usageId: string): Promise<void>;
  };
  /** Live sessions as event streams: results, translations and status go to every audience (src/stream). */
  streams: Pick<SessionStreams, 'publisher'>;
  /** Sends an error to the owner's client (errors are not part of the session stream). */
  error(err: AppError): void;
  /** The recording as the fleet sees it (src/realtime/live): audio segments, lease, snapshot. Absent: this process only. */
  live?: LiveDeps;
}

export interface LiveDeps {
  store: LiveRecordingStore;
  /** This realtime process (the holder named in live_recordings). */
  instanceId: string;
  /** PCM bytes per audio segment in the blob store. */
  segmentBytes: number;
  leaseMs: number;
}

export type SessionSummary = NonNullable<StartRequest['summary']>;

export function mmss(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export class Recording {
  readonly sessionId: string;
  taskId = '';
  /** Set by the connection before begin(): the live_recordings row keeps its hash (a resume on any process finds it). */
  resumeToken: string | null = null;
  /** What the owning connection adds to the snapshot (snapshot.ts). */
  owner: () => OwnerState = () => ({ rawStart: {}, status: 'started', gap: [], tts: this.start.tts });
  /** How the row ends when the recording is finalized (a late resume is told why). */
  endState: EndState = 'ended';
  /** The audio in the blob store as it arrives (live/segments.ts); null without `deps.live`. */
  private segments: SegmentWriter | null = null;
  private sessionGlossary: Glossary | null = null;
  /** What `set_summary` last asked for (initially the start's summary fields); kept in the sidecar too. */
  private asked: SessionSummary | null;
  /** The language recognized now (`switch_language` changes it). */
  language: string;
  private stream: RecognizerStream | null = null;
  /** multi_channel: one recognizer per channel (channels.ts) instead of `stream`. */
  channels: ChannelSet | null = null;
  /** multi_speaker with a recognizer that does not diarize: the live diarizer's labels (live-speakers.ts). */
  private speakers: LiveSpeakers | null = null;
  /** The session's event stream (open from begin() until finish() or abandon()). */
  private publisher: SessionPublisher | null = null;
  /** PCM that arrived while the recognizer was being switched; fed to the new stream. */
  private switching: Int16Array[] | null = null;
  private switched: Promise<void> | null = null;
  /** For audio_format webm: decodes MediaRecorder chunks to PCM (streaming decoder). */
  private webm: LiveAudioDecoder | null = null;
  private wavFd = -1;
  private wavPath = '';
  private bytes = 0;
  /** An odd trailing byte of a PCM chunk, joined with the next chunk (samples stay aligned). */
  private carry: Buffer | null = null;
  // Sentence ids start at 1 (the TTS stream's default `sid` 1 is the first sentence).
  private sids = new SentenceIds(1);
  readonly sentences: SentenceInput[] = [];
  /** Per target language, per sid (a retranslation replaces the entry). */
  readonly translations = new Map<string, Map<number, TranslationInput>>();
  private readonly pending = new Set<Promise<void>>();
  private markRecognized: () => void = () => {};
  /**
   * Resolves once finish() has the last finals and translations out (the recognizer flushed),
   * before storage and processing: a broadcast ends for its viewers then, after its last sentence.
   */
  readonly recognized = new Promise<void>((resolve) => {
    this.markRecognized = resolve;
  });
  private failuresInRow = 0;
  /** Display labels of speakers (channel labels, rename_speaker); written with the transcript. */
  speakerLabels: Record<string, string> = {};
  /** Speakers whose last sentence was reassigned away (they still exist). */
  keptSpeakers: string[] = [];
  /** Sentences a user reassigned (the diarizer's corrections skip them). */
  private readonly editedSids = new Set<number>();
  /** Speakers merged away: their later results go to the target. */
  private readonly mergedInto = new Map<string, string>();
  /** Conversation recordings: the two speakers (languages may change) and who speaks now (conversation-actions.ts). */
  readonly talk: { speakers: ConversationSpeaker[]; active: string } | null;
  usageId = '';
  private minutesCharged = 0;
  private charging: Promise<void> | null = null;
  /** Credit or a plan limit ended the recording: the connection stops it. */
  onMustEnd: (err: AppError) => void = () => {};
  /** A result with text arrived (the silence watch restarts). */
  onSpeech: () => void = () => {};
  /**
   * Another process took this recording over (it stalled past its lease and the grace): the
   * connection lets it go without finalizing it (that process continues or finishes it).
   */
  onLost: () => void = () => {};

  constructor(
    readonly deps: RecordingDeps,
    readonly principal: Principal,
    readonly start: StartRequest,
    sessionId: string = randomUUID(),
  ) {
    this.sessionId = sessionId;
    this.asked = start.summary;
    this.language = start.transcriptionLanguages[0] as string;
    this.talk = start.conversation
      ? { speakers: start.conversation.speakers.map((sp) => ({ ...sp })), active: start.conversation.speakers[0].speakerId }
      : null;
    if (this.talk) this.language = this.talk.speakers[0]?.language ?? this.language;
  }

  /** The session glossary (`config`): applies from the next result on, and to recognition from the next utterance. */
  get glossary(): Glossary | null {
    return this.sessionGlossary;
  }

  set glossary(glossary: Glossary | null) {
    this.sessionGlossary = glossary;
    this.stream?.setTerms?.(this.terms(this.language));
  }

  /** Glossary terms the recognizer of `language` is told to favour. */
  private terms(language: string): string[] {
    return this.sessionGlossary ? termHints(language, this.sessionGlossary) : [];
  }

  async begin(): Promise<void> {
    const s = this.start;
    const task = await this.deps.tasks.createTask({
      accountId: this.principal.accountId,
      keyId: this.principal.keyId,
      title: s.name ?? `Recording ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`,
      nameSource: s.name ? 'user' : 'auto',
      type: s.type,
      typeSource: s.type === 'broadcast' ? 'broadcast' : 'realtime',
      recognitionMode: s.recognitionMode,
      processingStatus: 'recording',
      transcriptionLanguages: s.transcriptionLanguages,
      translationLanguages: s.translationLanguages,
    });
    this.taskId = task.taskId;
    this.publisher = await this.deps.streams.publisher(
      this.taskId,
      s.conversation ? 1 : s.realtimeTranslation ? s.translationLanguages.length : 0,
    );
    this.usageId = await this.deps.billing.startUsage(this.principal, this.taskId, this.start);
    // Minute 0 is charged at start; minute n when audio reaches n billing minutes.
    await this.deps.billing.chargeMinute(this.principal, this.usageId, 0, this.start);
    this.minutesCharged = 1;
    // Audio on disk as it arrives, with a sidecar: a crashed process's recordings are recovered (recover.ts).
    mkdirSync(this.deps.tempDir, { recursive: true });
    this.wavPath = join(this.deps.tempDir, `${this.taskId}.wav`);
    this.wavFd = openSync(this.wavPath, 'w');
    writeSync(this.wavFd, wavHeader(0));
    this.writeSidecar();
    const live = this.deps.live;
    if (live) {
      await live.store.insert({
        task_id: this.taskId,
        account_id: this.principal.accountId,
        key_id: this.principal.keyId,
        usage_id: this.usageId,
        token_hash: this.resumeToken ? tokenHash(this.resumeToken) : null,
        state: 'live',
        instance_id: live.instanceId,
        lease_until: new Date(Date.now() + live.leaseMs).toISOString(),
        snapshot: JSON.stringify(this.snapshot()),
      });
      this.segments = this.segmentWriter(live, 0, 0);
    }
    if (s.channels) {
      this.channels = new ChannelSet((spec, offset, lane) => this.openChannel(spec, offset, lane));
      await this.channels.begin(s.channels);
      for (const c of s.channels) this.setSpeakerLabel(String(c.channelId), c.label);
    } else this.stream = await this.openStream(this.language, 0, this.talkLabels());
    for (const sp of this.talk?.speakers ?? []) this.setSpeakerLabel(sp.speakerId, sp.label);
    if (s.recognitionMode === 'multi_speaker') this.speakers = this.openSpeakers();
    // The stream's first event (retained): from here on audiences on any node see the session
    // as live (floating subtitles answer 425 recording_not_ready before). The owner's socket is
    // attached after begin(), so it gets session_started instead.
    this.events.publish({ event: 'status', data: { status: 'started' } });
  }

  /** multi_speaker: the live diarizer beside a recognizer without diarization of its own. */
  private openSpeakers(): LiveSpeakers | null {
    const selected = this.deps.engines.select({ kind: 'streaming-stt', language: this.language, interimResults: true, diarization: true });
    if (selected.ok) return null; // the recognizer labels speakers itself
    const diarizer = liveDiarizer(this.deps.engines);
    if (!diarizer?.openLive) throw new AppError('diarization_unavailable', { variant: 'websocket', details: { language: this.language } });
    try {
      return new LiveSpeakers(diarizer.openLive(), (err) => {
        this.deps.logger.error({ err, engine: diarizer.id }, 'live diarization failed; later sentences keep the last speaker');
        this.deps.error(new AppError('diarization_failed', { variant: 'websocket', details: { engine: diarizer.id } }));
      });
    } catch (err) {
      this.deps.logger.error({ err }, 'live diarization did not start');
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
    const languages = this.candidateLanguages;
    const selected = this.deps.engines.select({
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
          this.deps.logger.error({ err }, 'recognizer failed');
          this.deps.error(new AppError('stt_connection_lost', { variant: 'websocket', details: { language } }));
        },
        maxBacklogMs: this.deps.maxBacklogMs,
        // Recognition is slower than the audio arrives: the client is told once per episode.
        onAudioDropped: ({ backlogMs, limitMs }) => {
          this.deps.logger.warn({ backlogMs, limitMs, language }, 'recognition behind: audio dropped');
          this.deps.error(
            new AppError('stt_audio_dropped', {
              variant: 'websocket',
              details: { language, backlog_ms: backlogMs, limit_ms: limitMs, at_ms: Math.round(this.durationMs) },
            }),
          );
        },
      });
    } catch (err) {
      // Every decoder busy (retryable) is a capacity answer the client gets as stt_init_failed, not a fault.
      if (err instanceof EngineError && err.retryable) this.deps.logger.warn({ reason: err.message, language }, 'recognizer did not open');
      else this.deps.logger.error({ err, language }, 'recognizer did not open');
      // The engine's own code when it has one (stt_init_failed: every decoder busy), else stt_start_failed.
      const code = err instanceof EngineError ? err.code : 'stt_start_failed';
      throw new AppError(code, { variant: 'websocket', message: (err as Error).message, details: { language } });
    }
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
    const at = this.durationMs;
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
   * multi_language with two or more languages: the recognizer tells them apart and each
   * result is in the language it reports (`detectedLanguage`); `language` is the fallback.
   */
  private get candidateLanguages(): readonly string[] | undefined {
    const all = this.start.transcriptionLanguages;
    return this.start.recognitionMode === 'multi_language' && all.length > 1 ? all : undefined;
  }

  /** Client audio in the start's format: PCM goes straight in, WebM through the decoder. */
  write(chunk: Buffer): void {
    if (this.start.audioFormat === 'pcm') {
      this.writePcm(chunk);
      return;
    }
    this.webm ??= this.deps.audio.liveDecoder({
      onPcm: (pcm) => this.writePcm(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)),
      // The recording goes on: the client may send a fresh container.
      onError: (err) => this.deps.error(new AppError('audio_decode_failed', { variant: 'websocket', details: { reason: err.message } })),
    });
    this.webm.write(chunk);
  }

  /**
   * 16 kHz s16le mono, kept on disk and fed to the recognizer; multi_channel: interleaved
   * frames split among the channels' recognizers, their mono mix kept on disk.
   */
  private writePcm(input: Buffer): void {
    if (this.wavFd < 0) return;
    const pcm = this.carry ? Buffer.concat([this.carry, input]) : input;
    const even = pcm.length - (pcm.length % 2);
    this.carry = even < pcm.length ? Buffer.from(pcm.subarray(even)) : null;
    if (even === 0) return;
    let copy: Int16Array = new Int16Array(even / 2);
    for (let i = 0; i < copy.length; i++) copy[i] = pcm.readInt16LE(i * 2);
    if (this.channels) copy = this.channels.write(copy);
    else if (this.switching) this.switching.push(copy);
    else this.stream?.write(copy);
    this.speakers?.write(copy);
    if (copy.length === 0) return;
    const stored = Buffer.alloc(copy.length * 2);
    for (let i = 0; i < copy.length; i++) stored.writeInt16LE(copy[i] as number, i * 2);
    writeSync(this.wavFd, stored, 0, stored.length, 44 + this.bytes);
    this.bytes += stored.length;
    this.segments?.append(stored);
    if (this.durationMs >= this.minutesCharged * this.deps.billing.minuteMs && !this.charging) this.chargeNext();
  }

  private chargeNext(): void {
    const index = this.minutesCharged++;
    this.charging = this.deps.billing
      .chargeMinute(this.principal, this.usageId, index, this.start)
      .catch((err) => {
        this.deps.logger.info({ err: (err as Error).message, minute: index }, 'minute not started');
        const limit =
          err instanceof AppError &&
          (err.code === 'daily_limit_disconnect' || err.code === 'daily_limit_reached' || err.code === 'plan_feature_not_allowed');
        const end = limit
          ? new AppError(err.code, { variant: 'websocket', message: err.message, details: { ...err.details, minute: index } })
          : new AppError('stt_quota_exceeded', { variant: 'websocket', details: { minute: index } });
        this.deps.error(end);
        this.onMustEnd(end);
      })
      .finally(() => {
        this.charging = null;
      });
  }

  private onResult(language: string, offsetMs: number, r: SttResult, lane: Lane): void {
    if (!r.text.trim()) {
      if (r.isFinal) this.withdraw(language, offsetMs, r, lane);
      return;
    }
    if (!this.speakers || r.speakerId !== undefined) {
      this.deliver(language, offsetMs, r, lane);
      return;
    }
    if (!r.isFinal) {
      const speakerId = this.speakers.interim(offsetMs + r.startMs, offsetMs + r.endMs);
      this.deliver(language, offsetMs, speakerId === null ? r : { ...r, speakerId }, lane);
      return;
    }
    // A final may hold two speakers: one sentence per speaker turn.
    for (const part of this.speakers.final(r, offsetMs)) this.deliver(language, offsetMs, part, lane);
    for (const c of this.speakers.corrections()) this.relabel(c);
  }

  /**
   * The live diarizer changed its mind about earlier audio: each final sentence mostly inside
   * it that still carries the old speaker moves to the new one (sentences a user reassigned stay),
   * told to every audience as `speaker_reassigned` (`source` `diarization`) and stored so.
   */
  private relabel(c: SpeakerCorrection): void {
    const from = this.speakerOf(c.previousSpeakerId);
    const to = this.speakerOf(c.speakerId) as string;
    if (from === to) return;
    for (const s of this.sentences) {
      const inside = Math.min(s.endMs, c.endMs) - Math.max(s.startMs, c.startMs);
      const mostly = inside > 0 && inside * 2 >= s.endMs - s.startMs;
      if (s.speakerId !== from || this.editedSids.has(s.sid) || !mostly) continue;
      s.speakerId = to;
      this.events.publish({
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

  /**
   * An utterance came to nothing (an empty final): a sentence it showed interims of, that a
   * later sentence already follows, gets a final of empty text so every screen drops it; it is
   * not part of the transcript.
   */
  private withdraw(language: string, offsetMs: number, r: SttResult, lane: Lane): void {
    const sid = this.sids.withdraw(keyOf(lane, r));
    if (sid === null) return;
    this.publishResult(sid, language, offsetMs, r, '');
  }

  private deliver(streamLanguage: string, offsetMs: number, r: SttResult, lane: Lane): void {
    if (!r.text.trim()) return;
    // multi_language: the utterance is in the language the recognizer heard (one of the start's).
    const language = this.candidateLanguages && r.detectedLanguage ? r.detectedLanguage : streamLanguage;
    this.onSpeech();
    const glossary = this.glossary;
    // Readable (capitals, glossary terms as written, punctuation) before anyone sees or translates it.
    const text = readableText(r, language, { rewrite: glossary ? (t) => applyGlossary(t, language, glossary) : undefined });
    const key = keyOf(lane, r);
    const sid = this.sids.of(key);
    const startMs = offsetMs + r.startMs;
    this.publishResult(sid, language, offsetMs, r, text);
    if (!r.isFinal) return;
    this.sids.close(key);
    this.sentences.push({ sid, origin: text, startMs, endMs: offsetMs + r.endMs, language, speakerId: this.speakerOf(r.speakerId) });
    if (this.start.realtimeTranslation)
      for (const to of this.targetsOf(language, r.speakerId)) this.track(this.translate(sid, text, language, to));
  }

  private publishResult(sid: number, language: string, offsetMs: number, r: SttResult, text: string): void {
    this.events.publish({
      event: 'result',
      data: {
        origin: {
          sid,
          language,
          text,
          is_final: r.isFinal,
          speaker_id: this.speakerOf(r.speakerId),
          detected_language: r.detectedLanguage ?? null,
          start_time: mmss(offsetMs + r.startMs),
          // Extension: the audio position (ms from the recording's start) the result covers up to.
          end_ms: offsetMs + r.endMs,
          ...(r.channel !== undefined ? { channel_id: r.channel } : {}),
        },
      },
    });
  }

  /** Conversation: results of a stream carry the speaker who was speaking when it opened. */
  private talkLabels(): { speakerId?: string } {
    return this.talk ? { speakerId: this.talk.active } : {};
  }

  /** The language the conversation speaks now (the active speaker's). */
  get activeLanguage(): string {
    return this.talk?.speakers.find((sp) => sp.speakerId === this.talk?.active)?.language ?? this.language;
  }

  /** Where a final goes: a conversation side into the other side's language, else the start's targets. */
  private targetsOf(language: string, speakerId: string | undefined): readonly string[] {
    if (this.candidateLanguages) return this.start.translationLanguages.filter((to) => baseLanguage(to) !== baseLanguage(language));
    if (!this.talk) return this.start.translationLanguages;
    const other = this.talk.speakers.find((sp) => sp.speakerId !== speakerId)?.language;
    return other && other !== language ? [other] : [];
  }

  setSpeakerLabel(speakerId: string, label: string | null): void {
    if (label === null || label === speakerId) delete this.speakerLabels[speakerId];
    else this.speakerLabels[speakerId] = label;
  }

  /** The speakers as the speaker rules see them (src/tasks/speakers/rules.ts): final sentences, channels, kept ones. */
  speakerSnapshot(): SpeakerSnapshot {
    const speakers = new Map<string, number[]>();
    for (const s of [...this.sentences].sort((a, b) => a.sid - b.sid)) {
      if (!s.speakerId) continue;
      const list = speakers.get(s.speakerId) ?? [];
      list.push(s.sid);
      speakers.set(s.speakerId, list);
    }
    for (const id of [...(this.channels?.ids.map(String) ?? []), ...this.keptSpeakers]) if (!speakers.has(id)) speakers.set(id, []);
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
    this.events.publish(plan.event);
  }

  /** A recognized speaker after merges. */
  protected speakerOf(id: string | undefined): string | null {
    if (id === undefined) return null;
    return this.mergedInto.get(id) ?? id;
  }

  private track(p: Promise<unknown>): void {
    const settled = p.then(() => {});
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /** Translates one final sentence; a failure is sentence-level (carries sid) and never ends the session. */
  private async translate(sid: number, text: string, from: string, to: string): Promise<boolean> {
    const list = this.translations.get(to) ?? new Map<number, TranslationInput>();
    this.translations.set(to, list);
    const selected = this.deps.engines.select({ kind: 'translator', from, to });
    const translator = selected.ok ? selected.engine : undefined;
    try {
      if (!selected.ok) throw new Error(selected.refusal.message);
      const engine = selected.engine;
      const entries = this.glossary ? dictionaryFor(this.glossary, to) : [];
      const out = await translateWithDictionary(text, entries, (t) => engine.translate(t, { from, to }));
      this.failuresInRow = 0;
      list.set(sid, { sid, text: out });
      this.events.publish({ event: 'translation', data: { sid, language: to, text: out, is_final: true } });
      return true;
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, sid, to }, 'translation failed');
      list.set(sid, { sid, error: 'translation_failed' });
      this.deps.error(new AppError('translation_failed', { variant: 'websocket', sid, details: { translation_language: to } }));
      if (++this.failuresInRow === TRANSLATION_FAILURES_BEFORE_UNAVAILABLE) {
        this.deps.error(
          new AppError('translation_service_unavailable', {
            variant: 'websocket',
            details: {
              provider: translator?.id ?? null,
              translation_language: to,
              last_error_code: 'translation_failed',
              fail_count: this.failuresInRow,
            },
          }),
        );
      }
      return false;
    }
  }

  /** retranslate: the final sentences `sids` (all when null) again into `targets` (e.g. after a glossary change). */
  async retranslate(sids: number[] | null, targets: readonly string[]): Promise<{ updated: number; failed: number }> {
    const chosen = this.sentences.filter((s) => sids === null || sids.includes(s.sid));
    let updated = 0;
    let failed = 0;
    for (const s of chosen)
      for (const to of targets) {
        const p = this.translate(s.sid, s.origin, s.language ?? this.language, to);
        this.track(p);
        if (await p) updated++;
        else failed++;
      }
    return { updated, failed };
  }

  private get sidecarPath(): string {
    return this.wavPath.replace(/\.wav$/, '.json');
  }

  get summary(): SessionSummary | null {
    return this.asked;
  }

  /** `set_summary`: also written to the sidecar, so a recording recovered after a crash keeps it. */
  set summary(summary: SessionSummary | null) {
    this.asked = summary;
    if (this.wavFd >= 0) this.writeSidecar();
  }

  /** What recovery needs if this process dies (recover.ts): the task, its usage row, the summary asked for. */
  private writeSidecar(): void {
    const sidecar: RecordingSidecar = {
      task_id: this.taskId,
      usage_id: this.usageId,
      summary: this.asked ? summaryRequestOf(this.asked) : null,
    };
    writeFileSync(this.sidecarPath, JSON.stringify(sidecar));
  }

  /** The session's event stream (after begin()); the connection attaches the owner's socket to it. */
  get events(): SessionPublisher {
    if (!this.publisher) throw new Error('the recording has not begun');
    return this.publisher;
  }

  get durationMs(): number {
    return Math.round(this.bytes / BYTES_PER_MS);
  }

  get minutes(): number {
    return this.minutesCharged;
  }

  /** Ends recognition, then stores audio, transcript, translations and summary (finalize.ts). */
  async finish(kind: FinishKind = 'normal'): Promise<'completed' | 'failed'> {
    await this.webm?.end();
    await this.switched?.catch(() => {});
    await this.stream?.end();
    this.stream = null;
    // A conversation without summary_language is summarized in its active language.
    if (this.talk && this.asked && this.asked.language === null) this.asked = { ...this.asked, language: this.activeLanguage };
    await this.channels?.end();
    // Channels finish utterances out of order: the transcript is in sid order.
    this.sentences.sort((a, b) => a.sid - b.sid);
    await Promise.all([...this.pending]);
    this.markRecognized();
    await this.charging;
    await this.segments?.close();
    // No audio is never charged, whoever ended the recording (a force-fail keeps its user_forced outcome).
    await this.closeUsage(this.bytes === 0);
    writeSync(this.wavFd, wavHeader(this.bytes), 0, 44, 0);
    closeSync(this.wavFd);
    this.wavFd = -1;
    try {
      return await finalizeRecording(this, this.wavPath, kind);
    } finally {
      rmSync(this.wavPath, { force: true });
      rmSync(this.sidecarPath, { force: true });
      await this.forgetLive(this.endState);
      // The last event of the stream, after the last final and translation.
      this.publisher?.end();
    }
  }

  /** The recording is finalized: its segments go, its row says how it ended. */
  private async forgetLive(state: EndState): Promise<void> {
    if (!this.deps.live || !this.taskId) return;
    try {
      await this.deps.live.store.end(this.taskId, state);
      await this.deps.blobs.deletePrefix(segmentPrefix(this.taskId));
    } catch (err) {
      this.deps.logger.error({ err, task_id: this.taskId }, 'live recording row not ended');
    }
  }

  private segmentWriter(live: LiveDeps, segments: number, bytes: number): SegmentWriter {
    const deps = { blobs: this.deps.blobs, store: live.store, instanceId: live.instanceId, logger: this.deps.logger };
    return new SegmentWriter(
      deps,
      this.taskId,
      live.segmentBytes,
      () => JSON.stringify(this.snapshot()),
      segments,
      bytes,
      () => this.onLost(),
    );
  }

  /** Everything but the audio, for another process (live/snapshot.ts). */
  snapshot(): RecordingSnapshot {
    return {
      v: 1,
      ...this.owner(),
      sessionId: this.sessionId,
      start: this.start,
      language: this.language,
      summary: this.summary,
      glossary: this.sessionGlossary,
      nextSid: this.sids.nextSid,
      sentences: this.sentences,
      translations: Object.fromEntries([...this.translations].map(([lang, m]) => [lang, [...m.values()]])),
      speakerLabels: this.speakerLabels,
      keptSpeakers: this.keptSpeakers,
      mergedInto: [...this.mergedInto],
      talk: this.talk,
      minutesCharged: this.minutesCharged,
      seq: this.publisher?.lastSeq ?? 0,
      channels: this.channels?.specs ?? null,
    };
  }

  /**
   * Hands the recording to another process: recognition ends (the utterance in progress
   * becomes a final), translations and the minute charge settle, the last audio and the
   * snapshot are stored, and the row is parked for `graceMs`. The stream closes here without
   * an end: the process that takes over goes on with it. False: the audio could not all be
   * stored or the row was no longer ours; the recording is then still here, to be finished.
   */
  async park(graceMs: number): Promise<boolean> {
    const live = this.deps.live;
    if (!live || !this.segments) return false;
    await this.webm?.end();
    await this.switched?.catch(() => {});
    await this.stream?.end();
    this.stream = null;
    await this.channels?.end();
    this.channels = null;
    await Promise.all([...this.pending]);
    await this.charging;
    await this.segments.flush();
    if (this.segments.unstored > 0) await this.segments.flush(); // one more try after a failed PUT
    if (this.segments.unstored > 0) return false;
    await this.segments.close();
    const parked = await live.store.park(this.taskId, live.instanceId, graceMs);
    if (!parked) return false;
    closeSync(this.wavFd);
    this.wavFd = -1;
    rmSync(this.wavPath, { force: true });
    rmSync(this.sidecarPath, { force: true });
    this.publisher?.close();
    return true;
  }

  /**
   * Continues here a recording another process held (the row is claimed by this process):
   * its audio from the segments, its sentences, sids, charges and stream position from the
   * snapshot. `recognize`: recognition goes on (a resume); false: the recording is only to be
   * finished (its process died and nobody resumed it).
   */
  async continueFrom(row: LiveRow, snap: RecordingSnapshot, recognize: boolean): Promise<void> {
    const live = this.deps.live;
    if (!live) throw new Error('live recordings are not wired');
    this.taskId = row.task_id;
    this.usageId = row.usage_id;
    this.minutesCharged = snap.minutesCharged;
    this.sids = new SentenceIds(snap.nextSid);
    this.sentences.push(...snap.sentences);
    for (const [lang, list] of Object.entries(snap.translations)) this.translations.set(lang, new Map(list.map((t) => [t.sid, t])));
    this.speakerLabels = { ...snap.speakerLabels };
    this.keptSpeakers = [...snap.keptSpeakers];
    for (const [from, to] of snap.mergedInto) this.mergedInto.set(from, to);
    this.language = snap.language;
    this.summary = snap.summary;
    this.sessionGlossary = snap.glossary;
    if (this.talk && snap.talk) {
      this.talk.speakers = snap.talk.speakers.map((sp) => ({ ...sp }));
      this.talk.active = snap.talk.active;
    }
    const s = this.start;
    this.publisher = await this.deps.streams.publisher(
      this.taskId,
      s.conversation ? 1 : s.realtimeTranslation ? s.translationLanguages.length : 0,
      snap.seq,
    );
    mkdirSync(this.deps.tempDir, { recursive: true });
    this.wavPath = join(this.deps.tempDir, `${this.taskId}.wav`);
    writeFileSync(this.wavPath, wavHeader(0));
    this.bytes = await downloadSegments(this.deps.blobs, this.taskId, this.wavPath);
    this.bytes -= this.bytes % 2;
    this.wavFd = openSync(this.wavPath, 'r+');
    this.writeSidecar();
    this.segments = this.segmentWriter(live, row.segments, this.bytes);
    if (!recognize) return;
    // multi_channel: the channels now (the first snapshot, taken before they opened, has the start's).
    if (s.channels) {
      this.channels = new ChannelSet((spec, offset, lane) => this.openChannel(spec, offset, lane), this.durationMs);
      await this.channels.begin(snap.channels ?? s.channels ?? []);
    } else this.stream = await this.openStream(this.language, this.durationMs, this.talkLabels());
    if (s.recognitionMode === 'multi_speaker') {
      this.speakers = this.openSpeakers();
      // The live diarizer hears the recording so far again: the speakers keep their labels.
      if (this.speakers) await this.replayTo(this.speakers);
    }
  }

  /** continueFrom failed part way: what it opened here goes, the row and segments stay for another process. */
  async discard(): Promise<void> {
    this.webm?.abort();
    this.stream?.abort();
    this.stream = null;
    this.channels?.abort();
    this.channels = null;
    await this.segments?.close();
    this.segments = null;
    if (this.wavFd >= 0) closeSync(this.wavFd);
    this.wavFd = -1;
    if (this.wavPath) {
      rmSync(this.wavPath, { force: true });
      rmSync(this.sidecarPath, { force: true });
    }
    this.publisher?.close();
  }

  private async replayTo(speakers: LiveSpeakers): Promise<void> {
    let carry: Buffer | null = null;
    for await (const chunk of createReadStream(this.wavPath, { start: 44, end: 44 + this.bytes - 1 })) {
      const b: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      const even = b.length - (b.length % 2);
      carry = even < b.length ? b.subarray(even) : null;
      const pcm = new Int16Array(even / 2);
      for (let i = 0; i < pcm.length; i++) pcm[i] = b.readInt16LE(i * 2);
      speakers.write(pcm);
    }
  }

  /** Ends the usage row; refunds it when nothing was recorded (spec: no_audio failure with a refund). */
  private async closeUsage(refund: boolean): Promise<void> {
    if (!this.usageId) return;
    try {
      await this.deps.billing.endUsage(this.usageId);
      if (refund) await this.deps.billing.refundNoAudio(this.usageId);
    } catch (err) {
      this.deps.logger.error({ err, usage_id: this.usageId }, 'closing the usage row failed');
    }
  }

  /** begin() failed part way (e.g. the first minute not covered): undo what it made. */
  async abandon(): Promise<void> {
    // A subscriber that joined in the meantime learns that this session is over.
    this.publisher?.end();
    this.webm?.abort();
    this.stream?.abort();
    this.stream = null;
    this.channels?.abort();
    if (this.wavFd >= 0) closeSync(this.wavFd);
    this.wavFd = -1;
    if (this.wavPath) rmSync(this.wavPath, { force: true });
    if (this.wavPath) rmSync(this.sidecarPath, { force: true });
    await this.segments?.close();
    await this.forgetLive('ended');
    await this.closeUsage(true);
    if (this.taskId) await this.deps.tasks.fail(this.taskId, { source: 'no_audio', code: 'start_refused' }).catch(() => {});
  }
}
