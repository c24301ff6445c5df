/**
 * One live recording, as a coordinator of parts that each own their state (src/realtime/recording/):
 *
 *   input        client audio -> samples (PCM alignment, the WebM decoder)
 *   recognition  recognizer stream(s): language, switch, channels, live diarizer, conversation speakers
 *   transcript   sentence ids, results, sentences, speaker labels, edits and diarizer relabelling
 *   translation  real-time translation of finals, retranslate
 *   meter        usage row and per-minute charges
 *   tape         the WAV file on this machine and its crash sidecar
 *   fleet copy   the live_recordings row and the audio segments in the blob store
 *
 * Here: the task record, the session stream, the session glossary and summary, the snapshot
 * other processes continue from (each part adds its share), and `close(mode)`, the one way a
 * recording ends here. Finalization into the task is in finalize.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Glossary } from '../glossary/index.js';
import type { Principal } from '../platform/auth/types.js';
import type { SessionPublisher } from '../stream/session-streams.js';
import type { SpeakerEditPlan, SpeakerSnapshot } from '../tasks/speaker-rules.js';
import type { SentenceInput, TranslationInput } from '../tasks/store.js';
import type { ChannelSet } from './channels.js';
import { type FinishKind, finalizeRecording, summaryRequestOf } from './finalize.js';
import type { RecordingSnapshot } from './live/snapshot.js';
import type { EndState, LiveRow } from './live/store.js';
import { type Parts, streamLanes, wireParts } from './recording/parts.js';
import type { Talk } from './recording/recognition.js';
import type { CloseMode, CloseOutcome, RecordingDeps, RecordingOptions, SessionSummary } from './recording/types.js';
import type { StartRequest } from './start.js';

export type { LiveDeps } from './recording/fleet-copy.js';
export { TRANSLATION_FAILURES_BEFORE_UNAVAILABLE } from './recording/translation.js';
export type { CloseMode, CloseOutcome, RecordingDeps, RecordingOptions, SessionSummary } from './recording/types.js';

export class Recording {
  readonly sessionId: string;
  taskId = '';
  /** The live_recordings row keeps its hash: a resume on any process finds the recording (null: not resumable). */
  readonly resumeToken: string | null;
  /** The owner's hooks, given once: the session reports through them to whichever socket it has when they fire. */
  private readonly hooks: Required<Omit<RecordingOptions, 'glossary' | 'resumeToken'>>;
  /**
   * Resolves once finish() has the last finals and translations out (the recognizer flushed),
   * before storage and processing: a broadcast ends for its viewers then, after its last sentence.
   */
  private markRecognized: () => void = () => {};
  readonly recognized = new Promise<void>((resolve) => {
    this.markRecognized = resolve;
  });
  private sessionGlossary: Glossary | null = null;
  /** What `set_summary` last asked for (initially the start's summary fields); kept in the sidecar too. */
  private asked: SessionSummary | null;
  /** The session's event stream (open from begin() until the recording is closed). */
  private publisher: SessionPublisher | null = null;
  private readonly parts: Parts;

  constructor(
    readonly deps: RecordingDeps,
    readonly principal: Principal,
    readonly start: StartRequest,
    sessionId: string = randomUUID(),
    options: RecordingOptions = {},
  ) {
    this.sessionId = sessionId;
    this.asked = start.summary;
    this.resumeToken = options.resumeToken ?? null;
    this.sessionGlossary = options.glossary ?? null;
    this.hooks = {
      // Without an owner (a recording only finished here: live/orphans.ts) the snapshot has the start's state.
      owner: options.owner ?? (() => ({ rawStart: {}, status: 'started', gap: [], tts: this.start.tts })),
      onMustEnd: options.onMustEnd ?? (() => {}),
      onSpeech: options.onSpeech ?? (() => {}),
      onLost: options.onLost ?? (() => {}),
    };
    this.parts = wireParts(deps, principal, start, {
      publish: (event) => void this.events.publish(event),
      glossary: () => this.sessionGlossary,
      speech: () => this.hooks.onSpeech(),
      mustEnd: (err) => this.hooks.onMustEnd(err),
      lost: () => this.hooks.onLost(),
      snapshot: () => this.snapshot(),
    });
  }

  /** The session glossary now (the start's, or the last `config`'s: setGlossary). */
  get glossary(): Glossary | null {
    return this.sessionGlossary;
  }

  /** `config` sent a glossary: it applies from the next result on, and to recognition from the next utterance. */
  setGlossary(glossary: Glossary | null): void {
    this.sessionGlossary = glossary;
    this.parts.recognition.refreshTerms();
  }

  /** The language recognized now (`switch_language` changes it). */
  get language(): string {
    return this.parts.recognition.language;
  }

  /** multi_channel: one recognizer per channel (channels.ts). */
  get channels(): ChannelSet | null {
    return this.parts.recognition.channels;
  }

  /** Conversation recordings: the two speakers (languages may change) and who speaks now (conversation-actions.ts). */
  get talk(): Talk | null {
    return this.parts.recognition.talk;
  }

  /** The language the conversation speaks now (the active speaker's). */
  get activeLanguage(): string {
    return this.parts.recognition.activeLanguage;
  }

  /** Conversation (start_speaking): the speaker who speaks now; recognition follows through switchLanguage. */
  setActiveSpeaker(speakerId: string): void {
    const talk = this.parts.recognition.talk;
    if (talk) talk.active = speakerId;
  }

  /** Conversation (set_speaker_language): a speaker's language from now on (the snapshot carries it). */
  setSpeakerLanguage(speakerId: string, language: string): void {
    const speaker = this.parts.recognition.talk?.speakers.find((sp) => sp.speakerId === speakerId);
    if (speaker) speaker.language = language;
  }

  /** set_tts turned TTS on or off mid-session: the start says so from now on (the per-minute plan check, the snapshot). */
  setTtsEnabled(enabled: boolean): void {
    this.start.ttsEnabled = enabled;
  }

  get sentences(): SentenceInput[] {
    return this.parts.transcript.sentences;
  }

  /** Per target language, per sid (a retranslation replaces the entry). */
  get translations(): Map<string, Map<number, TranslationInput>> {
    return this.parts.translation.translations;
  }

  /** Display labels of speakers (channel labels, rename_speaker); written with the transcript. */
  get speakerLabels(): Record<string, string> {
    return this.parts.transcript.speakerLabels;
  }

  /** Speakers whose last sentence was reassigned away (they still exist). */
  get keptSpeakers(): string[] {
    return this.parts.transcript.keptSpeakers;
  }

  get usageId(): string {
    return this.parts.meter.usageId;
  }

  get durationMs(): number {
    return this.parts.tape.durationMs;
  }

  get minutes(): number {
    return this.parts.meter.minutes;
  }

  get summary(): SessionSummary | null {
    return this.asked;
  }

  /** `set_summary`: also written to the sidecar, so a recording recovered after a crash keeps it. */
  setSummary(summary: SessionSummary | null): void {
    this.asked = summary;
    if (this.parts.tape.recording) this.writeSidecar();
  }

  /** The session's event stream (after begin()); the session attaches its socket to it. */
  get events(): SessionPublisher {
    if (!this.publisher) throw new Error('the recording has not begun');
    return this.publisher;
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
    this.publisher = await this.deps.streams.publisher(this.taskId, streamLanes(this.start));
    await this.parts.meter.begin(this.taskId);
    // Audio on disk as it arrives, with a sidecar: a crashed process's recordings are recovered (recover.ts).
    this.parts.tape.open(this.taskId);
    this.writeSidecar();
    await this.parts.fleet.insert(this.taskId, this.principal, this.parts.meter.usageId, this.resumeToken);
    await this.parts.recognition.open(0, s.channels ?? null);
    for (const c of s.channels ?? []) this.setSpeakerLabel(String(c.channelId), c.label);
    for (const sp of this.talk?.speakers ?? []) this.setSpeakerLabel(sp.speakerId, sp.label);
    if (s.recognitionMode === 'multi_speaker') this.parts.recognition.openSpeakers();
    // The stream's first event (retained): from here on audiences on any node see the session
    // as live (floating subtitles answer 425 recording_not_ready before). The owner's socket is
    // attached after begin(), so it gets session_started instead.
    this.events.publish({ event: 'status', data: { status: 'started' } });
  }

  /**
   * Continues here a recording another process held (the row is claimed by this process):
   * its audio from the segments, its sentences, sids, charges and stream position from the
   * snapshot. `recognize`: recognition goes on (a resume); false: the recording is only to be
   * finished (its process died and nobody resumed it).
   */
  async continueFrom(row: LiveRow, snap: RecordingSnapshot, recognize: boolean): Promise<void> {
    if (!this.deps.live) throw new Error('live recordings are not wired');
    this.taskId = row.task_id;
    this.parts.meter.restore(row.usage_id, snap);
    this.parts.transcript.restore(snap);
    this.parts.translation.restore(snap);
    this.parts.recognition.restore(snap);
    this.setSummary(snap.summary);
    this.sessionGlossary = snap.glossary;
    this.publisher = await this.deps.streams.publisher(this.taskId, streamLanes(this.start), snap.seq);
    await this.parts.tape.resume(this.taskId, this.deps.blobs);
    this.writeSidecar();
    this.parts.fleet.resume(row, this.parts.tape.pcmBytes);
    if (!recognize) return;
    const s = this.start;
    // multi_channel: the channels now (the first snapshot, taken before they opened, has the start's).
    await this.parts.recognition.open(this.durationMs, s.channels ? (snap.channels ?? s.channels) : null);
    if (s.recognitionMode === 'multi_speaker') {
      const speakers = this.parts.recognition.openSpeakers();
      // The live diarizer hears the recording so far again: the speakers keep their labels.
      if (speakers) await this.parts.tape.replay((pcm) => speakers.write(pcm));
    }
  }

  /** Client audio in the start's format (PCM, or WebM through the live decoder). */
  write(chunk: Buffer): void {
    this.parts.input.write(chunk);
  }

  /** switch_language (recognition.ts). */
  switchLanguage(language: string): Promise<void> {
    return this.parts.recognition.switchLanguage(language);
  }

  setSpeakerLabel(speakerId: string, label: string | null): void {
    this.parts.transcript.setSpeakerLabel(speakerId, label);
  }

  /** The speakers as the speaker rules see them (src/tasks/speaker-rules.ts): final sentences, channels, kept ones. */
  speakerSnapshot(): SpeakerSnapshot {
    return this.parts.transcript.speakerSnapshot(this.channels?.ids.map(String) ?? []);
  }

  /** Applies a speaker edit to the sentences so far (and to later results of a merged speaker); every audience hears of it. */
  applySpeakerEdit(plan: SpeakerEditPlan<unknown>): void {
    this.parts.transcript.applySpeakerEdit(plan);
  }

  /** retranslate: the final sentences `sids` (all when null) again into `targets` (e.g. after a glossary change). */
  retranslate(sids: number[] | null, targets: readonly string[]): Promise<{ updated: number; failed: number }> {
    return this.parts.translation.retranslate(this.sentences, sids, targets, this.language);
  }

  /** Text in another language through this session's translator and glossary (what finals get; audiences' interims too). */
  translateText(text: string, from: string, to: string): Promise<string> {
    return this.parts.translation.text(text, from, to);
  }

  /** What recovery needs if this process dies (recover.ts): the task, its usage row, the summary asked for. */
  private writeSidecar(): void {
    this.parts.tape.writeSidecar({
      task_id: this.taskId,
      usage_id: this.parts.meter.usageId,
      summary: this.asked ? summaryRequestOf(this.asked) : null,
    });
  }

  /** Everything but the audio, for another process (live/snapshot.ts): each part adds its share. */
  snapshot(): RecordingSnapshot {
    return {
      v: 1,
      ...this.hooks.owner(),
      sessionId: this.sessionId,
      start: this.start,
      summary: this.summary,
      glossary: this.sessionGlossary,
      seq: this.publisher?.lastSeq ?? 0,
      ...this.parts.recognition.snapshot(),
      ...this.parts.transcript.snapshot(),
      ...this.parts.translation.snapshot(),
      ...this.parts.meter.snapshot(),
    };
  }

  /** Ends the recording here (see CloseMode); the four ways share one order of the parts. */
  async close(how: CloseMode): Promise<CloseOutcome> {
    const mode = how.mode;
    if (mode === 'park' && !this.parts.fleet.canPark) return 'kept';
    const graceful = mode === 'finish' || mode === 'park';
    // A subscriber that joined while begin() ran learns at once that this session is over.
    if (mode === 'abandon') this.publisher?.end();
    await this.parts.input.close(graceful);
    await this.parts.recognition.close(mode);
    if (graceful) {
      if (mode === 'finish') this.lastWords();
      await this.parts.translation.settle();
      if (mode === 'finish') this.markRecognized();
      await this.parts.meter.settle();
    }
    switch (how.mode) {
      case 'finish':
        return this.finalize(how.kind, how.endState ?? 'ended');
      case 'park':
        return this.handOver(how.graceMs);
      case 'discard':
        await this.parts.fleet.close();
        this.parts.tape.drop();
        this.publisher?.close();
        return 'closed';
      case 'abandon':
        this.parts.tape.drop();
        await this.parts.fleet.close();
        await this.parts.fleet.end(this.taskId, 'ended');
        await this.parts.meter.close(true);
        if (this.taskId) await this.deps.tasks.fail(this.taskId, { source: 'no_audio', code: 'start_refused' }).catch(() => {});
        return 'closed';
    }
  }

  /** Recognition has ended: the transcript in sid order; a conversation without summary_language is summarized in its active language. */
  private lastWords(): void {
    if (this.talk && this.asked && this.asked.language === null) this.asked = { ...this.asked, language: this.activeLanguage };
    this.parts.transcript.sortBySid();
  }

  /** `endState`: how the row ends (a late resume is told why: grace_expired or ended). */
  private async finalize(kind: FinishKind, endState: EndState): Promise<'completed' | 'failed'> {
    await this.parts.fleet.close();
    // No audio is never charged, whoever ended the recording (a force-fail keeps its user_forced outcome).
    await this.parts.meter.close(this.parts.tape.pcmBytes === 0);
    const wav = this.parts.tape.seal();
    try {
      return await finalizeRecording(this, wav, kind);
    } finally {
      this.parts.tape.drop();
      await this.parts.fleet.end(this.taskId, endState);
      // The last event of the stream, after the last final and translation.
      this.publisher?.end();
    }
  }

  /**
   * The stream closes without an end: the process that takes over goes on with it. Not parked
   * (audio not all stored, or the row no longer ours): the recording is still here, to be finished.
   */
  private async handOver(graceMs: number): Promise<'parked' | 'kept'> {
    if (!(await this.parts.fleet.park(this.taskId, graceMs))) return 'kept';
    this.parts.tape.drop();
    this.publisher?.close();
    return 'parked';
  }

  /** close `finish`: ends recognition, then stores audio, transcript, translations and summary (finalize.ts). */
  async finish(kind: FinishKind = 'normal', endState: EndState = 'ended'): Promise<'completed' | 'failed'> {
    return (await this.close({ mode: 'finish', kind, endState })) as 'completed' | 'failed';
  }

  /** close `park`: hands the recording to another process. False: it is still here, to be finished. */
  async park(graceMs: number): Promise<boolean> {
    return (await this.close({ mode: 'park', graceMs })) === 'parked';
  }

  /** close `discard`: continueFrom failed part way (or the recording was taken over); the row and segments stay. */
  async discard(): Promise<void> {
    await this.close({ mode: 'discard' });
  }

  /** close `abandon`: begin() failed part way (e.g. the first minute not covered); what it made is undone. */
  async abandon(): Promise<void> {
    await this.close({ mode: 'abandon' });
  }
}
